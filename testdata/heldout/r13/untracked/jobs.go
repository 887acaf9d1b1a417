package untracked

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

var errUnknownNode = errors.New("unknown node")

// JobRunner executes one background job.
type JobRunner interface {
	Execute(ctx context.Context, jobID string) error
	MarkFailed(ctx context.Context, jobID string, cause error) error
}

// JobService runs jobs asynchronously on behalf of API handlers.
type JobService struct {
	runner JobRunner
	nextID atomic.Int64
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sink   errSink
}

// NewJobService creates a service whose jobs live until Shutdown.
// ok: untrackedgo
func NewJobService(parent context.Context, r JobRunner) *JobService {
	ctx, cancel := context.WithCancel(parent)
	return &JobService{runner: r, ctx: ctx, cancel: cancel}
}

// run executes a job and records failures.
// ok: untrackedgo
func (s *JobService) run(jobID string) {
	if err := s.runner.Execute(s.ctx, jobID); err != nil {
		s.sink.add(errors.Join(err, s.runner.MarkFailed(s.ctx, jobID, err)))
	}
}

// Shutdown cancels running jobs and waits for the tracked ones.
// ok: untrackedgo
func (s *JobService) Shutdown() error {
	s.cancel()
	s.wg.Wait()
	return s.sink.join()
}

// StartAsync launches a job and returns its id at once. The job goroutine
// is launched through a method value with no registry, so Shutdown never
// waits for it and it can hit closed pools.
// From: writer/cerebro#933
// bug: untrackedgo
func (s *JobService) StartAsync(kind string) string {
	id := kind + "-" + itoa(s.nextID.Add(1))
	run := s.run
	go run(id)
	return id
}

// StartAsyncNearMiss registers the job with the service's WaitGroup.
// ok: untrackedgo
func (s *JobService) StartAsyncNearMiss(kind string) string {
	id := kind + "-" + itoa(s.nextID.Add(1))
	run := s.run
	s.wg.Go(func() { run(id) })
	return id
}

// itoa formats a positive job counter.
// ok: untrackedgo
func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
