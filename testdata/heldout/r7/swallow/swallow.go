// Package swallow holds code where an error that can carry
// context.Canceled or context.DeadlineExceeded is dropped, turned into nil,
// or logged and skipped, and the near-misses that report it.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"heldoutr7/stub"
)

// ErrNotFound reports that no replica had the key.
var ErrNotFound = errors.New("not found")

// Task is one step of a pipeline run.
type Task struct {
	Name string
	Run  func(ctx context.Context) error
}

// Pipeline runs its tasks in order and records which ones finished.
type Pipeline struct {
	Tasks []Task
	Done  map[string]bool
}

// Run checks for cancellation between tasks, but on a cancelled context it
// breaks out of the labelled loop and falls through to the success return.
// A pipeline stopped after two of five tasks is reported to the scheduler as
// succeeded, so it is never re-run.
// From: bruin-data/bruin#1660
// bug: swallowcancel
func (p *Pipeline) Run(ctx context.Context) error {
tasks:
	for _, t := range p.Tasks {
		select {
		case <-ctx.Done():
			log.Printf("pipeline: cancelled before %s", t.Name)
			break tasks
		default:
		}
		if err := t.Run(ctx); err != nil {
			return fmt.Errorf("task %s: %w", t.Name, err)
		}
		p.Done[t.Name] = true
	}
	return nil
}

// RunChecked returns the context error (wrapped with the task that was
// about to start) instead of breaking out, so a cancelled run fails.
// ok: swallowcancel
func (p *Pipeline) RunChecked(ctx context.Context) error {
	for _, t := range p.Tasks {
		select {
		case <-ctx.Done():
			return fmt.Errorf("pipeline cancelled before %s: %w", t.Name, ctx.Err())
		default:
		}
		if err := t.Run(ctx); err != nil {
			return fmt.Errorf("task %s: %w", t.Name, err)
		}
		p.Done[t.Name] = true
	}
	return nil
}

// SyncJob mirrors a set of chat channels.
type SyncJob struct {
	Channels []string
	Fetch    func(ctx context.Context, channel string) ([]string, error)
	Store    func(channel string, msgs []string) error
}

// SyncAll fans channels out to workers through an errgroup. When the caller
// cancels, the dispatcher returns nil instead of the context error, closes
// the queue, and the workers drain what they have; g.Wait() is nil and the
// sync is recorded as complete although most channels were never fetched.
// From: openclaw/slacrawl#190
// bug: swallowcancel
func SyncAll(ctx context.Context, job *SyncJob, workers int) error {
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan string)
	g.Go(func() error {
		defer close(queue)
		for _, ch := range job.Channels {
			select {
			case queue <- ch:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			for ch := range queue {
				msgs, err := job.Fetch(gctx, ch)
				if err != nil {
					return fmt.Errorf("fetch %s: %w", ch, err)
				}
				if err := job.Store(ch, msgs); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// SyncAllChecked returns the cancellation from the dispatcher and also
// checks the caller's context after Wait, so a cancel that lands after the
// last worker finished still fails the sync. A worker's own error still
// wins because errgroup keeps the first error.
// ok: swallowcancel
func SyncAllChecked(ctx context.Context, job *SyncJob, workers int) error {
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan string)
	g.Go(func() error {
		defer close(queue)
		for _, ch := range job.Channels {
			select {
			case queue <- ch:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			for ch := range queue {
				msgs, err := job.Fetch(gctx, ch)
				if err != nil {
					return fmt.Errorf("fetch %s: %w", ch, err)
				}
				if err := job.Store(ch, msgs); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// Record is one message from a partition.
type Record struct {
	Offset int64
	Value  []byte
}

// PartitionConsumer hands records to a dispatcher; the caller commits the
// batch offset whenever processBatch returns nil.
type PartitionConsumer struct {
	ctx     context.Context
	Handle  func(ctx context.Context, rec Record) error
	Backoff time.Duration
}

// ProcessBatch treats any error that matches context.Canceled as a
// shutdown signal and returns nil. The dispatcher can surface a Canceled
// from its own downstream call while the partition is still live; the record
// and the rest of the batch are dropped, the caller commits the batch
// offset, and the messages are lost for good.
// From: centrifugal/centrifugo#1221
// bug: swallowcancel
func (pc *PartitionConsumer) ProcessBatch(batch []Record) error {
	for _, rec := range batch {
		err := pc.Handle(pc.ctx, rec)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("record %d: %w", rec.Offset, err)
		}
	}
	return nil
}

// ProcessBatchChecked asks the partition context, not the error, whether
// this is a shutdown, and returns that error so the batch is not
// committed; an unrelated cancel goes through the normal backoff and retry,
// whose wait still watches the partition context.
// ok: swallowcancel
func (pc *PartitionConsumer) ProcessBatchChecked(batch []Record) error {
	for _, rec := range batch {
		for {
			err := pc.Handle(pc.ctx, rec)
			if err == nil {
				break
			}
			if cerr := pc.ctx.Err(); cerr != nil {
				return cerr
			}
			log.Printf("record %d: %v; retrying", rec.Offset, err)
			if serr := stub.Sleep(pc.ctx, pc.Backoff); serr != nil {
				return serr
			}
		}
	}
	return nil
}

// Indexer adds files to a search index.
type Indexer struct {
	Index func(path string) error
}

// IndexAll logs and skips every error the walk yields. When the job's
// context is cancelled the iterator yields ctx.Err() and stops; that is
// logged like a bad file and IndexAll returns the partial count with a nil
// error, so the job is marked finished with most of the tree unindexed.
// From: pachyderm/pachyderm#1459
// bug: swallowcancel
func (ix *Indexer) IndexAll(ctx context.Context, paths []string) (int, error) {
	n := 0
	for p, err := range stub.Walk(ctx, paths) {
		if err != nil {
			log.Printf("index: skipping %s: %v", p, err)
			continue
		}
		if err := ix.Index(p); err != nil {
			log.Printf("index %s: %v", p, err)
			continue
		}
		n++
	}
	return n, nil
}

// IndexAllChecked still skips bad files, but a context error from the walk
// ends the job with that error.
// ok: swallowcancel
func (ix *Indexer) IndexAllChecked(ctx context.Context, paths []string) (int, error) {
	n := 0
	for p, err := range stub.Walk(ctx, paths) {
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return n, fmt.Errorf("index stopped at %s: %w", p, err)
			}
			log.Printf("index: skipping %s: %v", p, err)
			continue
		}
		if err := ix.Index(p); err != nil {
			log.Printf("index %s: %v", p, err)
			continue
		}
		n++
	}
	return n, nil
}

// KeyMaterial is pre-computed key-generation input.
type KeyMaterial struct {
	Primes  []uint64
	Created time.Time
}

// PrepareKey treats an interrupted generation as "nothing to report": on
// context.Canceled the generator returns nil primes, and PrepareKey wraps
// that nil in a KeyMaterial and returns it with a nil error. The signer
// stores the empty material and later fails far from the cause.
// From: threshold-network/keep-core#3206
// bug: swallowcancel
func PrepareKey(ctx context.Context, count int) (*KeyMaterial, error) {
	primes, err := stub.GeneratePrimes(ctx, count)
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("generate primes: %w", err)
	}
	km := &KeyMaterial{Primes: primes, Created: time.Now()}
	log.Printf("key material ready: %d primes", len(km.Primes))
	return km, nil
}

// PrepareKeyChecked returns early with the generator's error, including
// cancellation, before wrapping anything.
// ok: swallowcancel
func PrepareKeyChecked(ctx context.Context, count int) (*KeyMaterial, error) {
	primes, err := stub.GeneratePrimes(ctx, count)
	if err != nil {
		return nil, fmt.Errorf("generate primes: %w", err)
	}
	km := &KeyMaterial{Primes: primes, Created: time.Now()}
	log.Printf("key material ready: %d primes", len(km.Primes))
	return km, nil
}

// WriteReq is one queued write; Done is called once with its outcome.
type WriteReq struct {
	Key  string
	Val  []byte
	Done func(err error)
}

// Batcher groups writes and flushes them on an interval.
type Batcher struct {
	Reqs     chan WriteReq
	Flush    func(ctx context.Context, batch []WriteReq) error
	Interval time.Duration
}

// Run completes every still-pending request with a nil error when the
// context is done, so clients waiting on those writes are told they were
// persisted although they were never flushed.
// From: oxia-db/oxia#692
// bug: swallowcancel
func (b *Batcher) Run(ctx context.Context) {
	var pending []WriteReq
	ticker := time.NewTicker(b.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, r := range pending {
				r.Done(nil)
			}
			return
		case r := <-b.Reqs:
			pending = append(pending, r)
		case <-ticker.C:
			err := b.Flush(ctx, pending)
			for _, r := range pending {
				r.Done(err)
			}
			pending = nil
		}
	}
}

// RunChecked completes pending requests with the context error on
// shutdown.
// ok: swallowcancel
func (b *Batcher) RunChecked(ctx context.Context) {
	var pending []WriteReq
	ticker := time.NewTicker(b.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, r := range pending {
				r.Done(ctx.Err())
			}
			return
		case r := <-b.Reqs:
			pending = append(pending, r)
		case <-ticker.C:
			err := b.Flush(ctx, pending)
			for _, r := range pending {
				r.Done(err)
			}
			pending = nil
		}
	}
}

// FirstMatch queries replicas in parallel and cancels the rest once one
// answers. The losers then fail with context.Canceled, which FirstMatch
// ignores, but only when a winner exists and the caller's own context is
// still live; a cancellation from the caller is always returned.
// ok: swallowcancel
func FirstMatch(ctx context.Context, replicas []func(ctx context.Context) (string, error)) (string, error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(qctx)
	var once sync.Once
	var found string
	for _, q := range replicas {
		g.Go(func() error {
			v, err := q(gctx)
			if err != nil {
				return err
			}
			once.Do(func() { found = v; cancel() })
			return nil
		})
	}
	err := g.Wait()
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr
	}
	if found != "" {
		return found, nil
	}
	if err == nil {
		err = ErrNotFound
	}
	return "", err
}

// WarmCache logs and skips keys that fail to load, but checks the context
// before every key and turns a load failure into an error when the context
// is done, so a cancelled warm-up is reported.
// ok: swallowcancel
func WarmCache(ctx context.Context, keys []string, load func(ctx context.Context, key string) error) error {
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("warm-up stopped at %s: %w", k, err)
		}
		if err := load(ctx, k); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("warm %s: %w", k, err)
			}
			log.Printf("warm %s: %v (skipped)", k, err)
		}
	}
	return nil
}
