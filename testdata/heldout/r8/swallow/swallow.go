// Package swallow holds functions where an error that may carry
// context.Canceled is, or is not, dropped on its way to the caller.
package swallow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Schema changes applied through a retry helper.

// RetryOptions configures a retrier.
type RetryOptions struct {
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	MaxAttempts    int
}

// Change is one schema change.
type Change struct {
	ID  string
	SQL string
}

// Applier applies schema changes.
type Applier interface {
	Apply(ctx context.Context, c Change) error
}

// SchemaChanger applies changes with retries.
type SchemaChanger struct {
	applier Applier
	opts    RetryOptions
}

var errNoAttempts = errors.New("schema: retry budget allowed no attempts")

type retrier struct {
	ctx     context.Context
	opts    RetryOptions
	attempt int
	backoff time.Duration
}

// startRetry returns a retrier bound to ctx; nothing is allocated that needs
// releasing.
// ok: swallowcancel
func startRetry(ctx context.Context, opts RetryOptions) *retrier {
	return &retrier{ctx: ctx, opts: opts, backoff: opts.InitialBackoff}
}

// Next reports whether another attempt may be made. It returns false without
// waiting when the context is already done, and otherwise waits out the
// backoff (waking early on cancellation) before every attempt but the first.
// ok: swallowcancel
func (r *retrier) Next() bool {
	if r.ctx.Err() != nil {
		return false
	}
	if r.opts.MaxAttempts > 0 && r.attempt >= r.opts.MaxAttempts {
		return false
	}
	r.attempt++
	if r.attempt == 1 {
		return true
	}
	t := time.NewTimer(r.backoff)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-t.C:
	}
	r.backoff = min(2*r.backoff, r.opts.MaxBackoff)
	return true
}

// isRetryable reports whether err is worth another attempt.
// ok: swallowcancel
func isRetryable(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// ApplyWithRetry applies a change, retrying transient failures. When ctx is
// already canceled on entry (a migration run that was aborted between two
// steps), Next returns false before the first attempt, lastErr is still nil,
// and the runner records the change as applied although it never ran.
// From: cockroachdb/cockroach#100659
// bug: swallowcancel
func (s *SchemaChanger) ApplyWithRetry(ctx context.Context, c Change) error {
	var lastErr error
	for r := startRetry(ctx, s.opts); r.Next(); {
		lastErr = s.applier.Apply(ctx, c)
		if lastErr == nil {
			return nil
		}
		if !isRetryable(lastErr) {
			return lastErr
		}
	}
	return lastErr
}

// ApplyWithRetryNearMiss is the same loop, but when the loop ends without a
// single attempt it reports why: the context error if there is one,
// errNoAttempts otherwise.
// ok: swallowcancel
func (s *SchemaChanger) ApplyWithRetryNearMiss(ctx context.Context, c Change) error {
	var lastErr error
	for r := startRetry(ctx, s.opts); r.Next(); {
		lastErr = s.applier.Apply(ctx, c)
		if lastErr == nil {
			return nil
		}
		if !isRetryable(lastErr) {
			return lastErr
		}
	}
	if lastErr == nil {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("schema change %s not attempted: %w", c.ID, err)
		}
		return errNoAttempts
	}
	return lastErr
}

// ---------------------------------------------------------------------------
// Streaming a command's output from a VM instance.

// Instance runs commands on a VM. Run streams stdout chunks on the first
// channel, which is closed when output ends. The second channel delivers the
// command's exit error; when ctx is canceled the instance kills the command
// and closes the error channel without sending anything.
type Instance interface {
	Run(ctx context.Context, cmd string) (<-chan []byte, <-chan error)
}

// Runner runs commands on an instance.
type Runner struct {
	inst Instance
}

// Collect gathers a command's output. When ctx is canceled the instance
// closes errc; the receive yields a nil error and the truncated output is
// returned as a complete, successful run.
// From: google/syzkaller#7448
// bug: swallowcancel
func (r *Runner) Collect(ctx context.Context, cmd string) ([]byte, error) {
	outc, errc := r.inst.Run(ctx, cmd)
	var buf bytes.Buffer
	for {
		select {
		case chunk, ok := <-outc:
			if !ok {
				outc = nil
				continue
			}
			buf.Write(chunk)
		case err := <-errc:
			if err != nil {
				return nil, fmt.Errorf("run %q: %w", cmd, err)
			}
			return buf.Bytes(), nil
		}
	}
}

// CollectNearMiss gives the context error priority when the error channel
// yields nothing, so a killed run is reported as canceled.
// ok: swallowcancel
func (r *Runner) CollectNearMiss(ctx context.Context, cmd string) ([]byte, error) {
	outc, errc := r.inst.Run(ctx, cmd)
	var buf bytes.Buffer
	for {
		select {
		case chunk, ok := <-outc:
			if !ok {
				outc = nil
				continue
			}
			buf.Write(chunk)
		case err, ok := <-errc:
			if !ok {
				if cerr := ctx.Err(); cerr != nil {
					return nil, fmt.Errorf("run %q: %w", cmd, cerr)
				}
				return buf.Bytes(), nil
			}
			if err != nil {
				return nil, fmt.Errorf("run %q: %w", cmd, err)
			}
			return buf.Bytes(), nil
		}
	}
}

// ---------------------------------------------------------------------------
// A change-feed processor running a puller and a sink in an errgroup.

// Event is one change event.
type Event struct {
	Key   string
	Value []byte
}

// Puller yields change events; Next returns ctx errors (possibly wrapped)
// once ctx is done.
type Puller interface {
	Next(ctx context.Context) (Event, error)
}

// Sink writes events.
type Sink interface {
	Write(ctx context.Context, ev Event) error
}

// Processor moves events from a puller to a sink.
type Processor struct {
	puller Puller
	sink   Sink
	events chan Event
}

// Run runs the pull and sink loops until one fails or ctx ends, and returns
// the first error.
// ok: swallowcancel
func (p *Processor) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return p.pullLoop(gctx) })
	g.Go(func() error { return p.sinkLoop(gctx) })
	return g.Wait()
}

// pullLoop forwards events. It turns a (wrapped) context.Canceled from the
// puller into nil; when the changefeed is stopped by its parent context both
// loops end this way and Run reports a clean finish, so the owner marks the
// feed as fully drained.
// From: pingcap/tiflow#148
// bug: swallowcancel
func (p *Processor) pullLoop(ctx context.Context) error {
	for {
		ev, err := p.puller.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return fmt.Errorf("pull: %w", err)
		}
		select {
		case p.events <- ev:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pullLoopNearMiss returns the cause of the group context once it is done,
// instead of the puller's wrapped copy, and passes every other error up.
// ok: swallowcancel
func (p *Processor) pullLoopNearMiss(ctx context.Context) error {
	for {
		ev, err := p.puller.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("pull: %w", err)
		}
		select {
		case p.events <- ev:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sinkLoop writes events until ctx ends.
// ok: swallowcancel
func (p *Processor) sinkLoop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-p.events:
			if err := p.sink.Write(ctx, ev); err != nil {
				return fmt.Errorf("sink %s: %w", ev.Key, err)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Code search through a subprocess.

// Match is one search hit.
type Match struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Searcher runs an external search binary.
type Searcher struct {
	bin string
}

// parseMatches decodes newline-delimited JSON matches, skipping a torn last
// line.
// ok: swallowcancel
func parseMatches(out []byte) []Match {
	var ms []Match
	for line := range bytes.SplitSeq(out, []byte("\n")) {
		var m Match
		if json.Unmarshal(line, &m) == nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// Search runs the search binary. When the request is canceled the process is
// killed and exits non-zero; that error is dropped because ctx is done, so
// the caller gets a truncated match list with a nil error and caches it as
// the full result.
// From: sourcegraph/sourcegraph-public-snapshot#37975
// bug: swallowcancel
func (s *Searcher) Search(ctx context.Context, pattern, root string) ([]Match, error) {
	cmd := exec.CommandContext(ctx, s.bin, "--json", pattern, root)
	out, err := cmd.Output()
	matches := parseMatches(out)
	if err != nil {
		if ctx.Err() != nil {
			// killed because the search was canceled; not a real failure
			return matches, nil
		}
		return nil, fmt.Errorf("search %q: %w", pattern, err)
	}
	return matches, nil
}

// SearchNearMiss still hands back the partial matches for streaming display,
// but with the context error so callers can tell they are partial.
// ok: swallowcancel
func (s *Searcher) SearchNearMiss(ctx context.Context, pattern, root string) ([]Match, error) {
	cmd := exec.CommandContext(ctx, s.bin, "--json", pattern, root)
	out, err := cmd.Output()
	matches := parseMatches(out)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return matches, fmt.Errorf("search %q interrupted: %w", pattern, cerr)
		}
		return nil, fmt.Errorf("search %q: %w", pattern, err)
	}
	return matches, nil
}

// ---------------------------------------------------------------------------
// A CI worker that runs builds.

// Job is a queued build.
type Job struct {
	ID   string
	Spec string
}

// BuildRunner runs a build.
type BuildRunner interface {
	Run(ctx context.Context, spec string) (string, error)
}

// JobStore records job outcomes.
type JobStore interface {
	MarkSucceeded(ctx context.Context, id, result string) error
	MarkFailed(ctx context.Context, id, reason string) error
	MarkCanceled(ctx context.Context, id string) error
}

// Worker runs jobs; a user can cancel a running job through Cancel.
type Worker struct {
	runner BuildRunner
	store  JobStore
	log    *log.Logger

	mu      sync.Mutex
	running map[string]context.CancelFunc
}

// track remembers the cancel func of a running job.
// ok: swallowcancel
func (w *Worker) track(id string, cancel context.CancelFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running[id] = cancel
}

// untrack forgets a finished job.
// ok: swallowcancel
func (w *Worker) untrack(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running, id)
}

// Cancel cancels a running job, reporting whether it was running.
// ok: swallowcancel
func (w *Worker) Cancel(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	cancel, ok := w.running[id]
	if ok {
		cancel()
	}
	return ok
}

// processJob runs one job. A canceled build is logged and then falls through
// to the success path, so the job is stored as succeeded with whatever
// partial result the runner returned and processJob reports nil.
// From: PikoCI/pikoci#382
// bug: swallowcancel
func (w *Worker) processJob(ctx context.Context, job *Job) error {
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.track(job.ID, cancel)
	defer w.untrack(job.ID)

	res, err := w.runner.Run(jobCtx, job.Spec)
	if err != nil && !errors.Is(err, context.Canceled) {
		if merr := w.store.MarkFailed(ctx, job.ID, err.Error()); merr != nil {
			return errors.Join(err, merr)
		}
		return err
	}
	if err != nil {
		w.log.Printf("job %s canceled", job.ID)
	}
	return w.store.MarkSucceeded(ctx, job.ID, res)
}

// processJobNearMiss records the cancellation and returns it.
// ok: swallowcancel
func (w *Worker) processJobNearMiss(ctx context.Context, job *Job) error {
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.track(job.ID, cancel)
	defer w.untrack(job.ID)

	res, err := w.runner.Run(jobCtx, job.Spec)
	switch {
	case errors.Is(err, context.Canceled):
		if merr := w.store.MarkCanceled(ctx, job.ID); merr != nil {
			return errors.Join(err, merr)
		}
		return err
	case err != nil:
		if merr := w.store.MarkFailed(ctx, job.ID, err.Error()); merr != nil {
			return errors.Join(err, merr)
		}
		return err
	}
	return w.store.MarkSucceeded(ctx, job.ID, res)
}

// ---------------------------------------------------------------------------
// Exporting a snapshot through a producer/consumer errgroup.

// Row is one exported row.
type Row struct {
	ID   int64
	Data string
}

// Snapshot is a consistent in-memory view.
type Snapshot interface {
	All() iter.Seq[Row]
}

// Exporter writes a snapshot to a writer.
type Exporter struct {
	snap Snapshot
}

// writeRow writes one row as a line.
// ok: swallowcancel
func writeRow(w io.Writer, r Row) error {
	_, err := fmt.Fprintf(w, "%d\t%s\n", r.ID, r.Data)
	return err
}

// Export streams all rows to w and returns how many were written. The
// producer returns nil when the group context is done; if the export request
// is canceled, the consumer drains what was sent, both goroutines return nil,
// and a truncated export is reported as complete.
// From: pesos/grofer#48
// bug: swallowcancel
func (e *Exporter) Export(ctx context.Context, w io.Writer) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	rows := make(chan Row)
	g.Go(func() error {
		defer close(rows)
		for r := range e.snap.All() {
			select {
			case rows <- r:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	n := 0
	g.Go(func() error {
		for r := range rows {
			if err := writeRow(w, r); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return n, err
	}
	return n, nil
}

// ExportNearMiss returns the group context's error from the producer, so a
// canceled export fails Wait.
// ok: swallowcancel
func (e *Exporter) ExportNearMiss(ctx context.Context, w io.Writer) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	rows := make(chan Row)
	g.Go(func() error {
		defer close(rows)
		for r := range e.snap.All() {
			select {
			case rows <- r:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	n := 0
	g.Go(func() error {
		for r := range rows {
			if err := writeRow(w, r); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return n, err
	}
	return n, nil
}

// ---------------------------------------------------------------------------
// Periodic compaction of partitions.

// Partition is a storage partition.
type Partition struct {
	Name string
}

// RunSummary describes one compaction cycle.
type RunSummary struct {
	Compacted int
	Failed    int
	At        time.Time
}

// Compactor compacts partitions.
type Compactor struct {
	compact func(ctx context.Context, p Partition) error
	logf    func(format string, args ...any)
	lastRun atomic.Pointer[RunSummary]
}

// CompactPartitions compacts every partition, logging failures so that one
// bad partition does not block the others. Once ctx is canceled every
// remaining partition fails with context.Canceled, is logged as "will retry
// next cycle", and the cycle returns nil; the scheduler records a finished
// cycle and advances its watermark.
// From: rilldata/rill#6540
// bug: swallowcancel
func (c *Compactor) CompactPartitions(ctx context.Context, parts []Partition) error {
	done, failed := 0, 0
	for _, p := range parts {
		if err := c.compact(ctx, p); err != nil {
			c.logf("compact %s failed, will retry next cycle: %v", p.Name, err)
			failed++
			continue
		}
		done++
	}
	c.lastRun.Store(&RunSummary{Compacted: done, Failed: failed, At: time.Now()})
	return nil
}

// CompactPartitionsNearMiss still logs and skips a failing partition, but
// stops and returns the context error as soon as the context is done.
// ok: swallowcancel
func (c *Compactor) CompactPartitionsNearMiss(ctx context.Context, parts []Partition) error {
	done, failed := 0, 0
	for _, p := range parts {
		if err := c.compact(ctx, p); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return fmt.Errorf("compaction interrupted at %s: %w", p.Name, cerr)
			}
			c.logf("compact %s failed, will retry next cycle: %v", p.Name, err)
			failed++
			continue
		}
		done++
	}
	c.lastRun.Store(&RunSummary{Compacted: done, Failed: failed, At: time.Now()})
	return nil
}

// ---------------------------------------------------------------------------
// Correct functions that only look like they drop errors.

// ReadFrames reads length-prefixed frames until the stream ends. io.EOF at a
// frame boundary is the normal end and becomes nil; every other error,
// including a canceled read, is returned.
// ok: swallowcancel
func ReadFrames(r io.Reader, maxFrame int) ([][]byte, error) {
	var frames [][]byte
	var hdr [2]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return frames, nil
			}
			return frames, fmt.Errorf("frame header: %w", err)
		}
		n := int(hdr[0])<<8 | int(hdr[1])
		if n > maxFrame {
			return frames, fmt.Errorf("frame of %d bytes exceeds %d", n, maxFrame)
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return frames, fmt.Errorf("frame body: %w", err)
		}
		frames = append(frames, buf)
	}
}

// Serve runs an HTTP server until it is shut down. ErrServerClosed is how
// ListenAndServe reports a requested shutdown, so it becomes nil.
// ok: swallowcancel
func Serve(srv *http.Server) error {
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", srv.Addr, err)
	}
	return nil
}

// Heartbeat sends heartbeats until ctx ends. The goroutine returns nil on
// ctx.Done, but the function checks ctx itself after Wait, so a canceled run
// is still reported.
// ok: swallowcancel
func Heartbeat(ctx context.Context, every time.Duration, beat func(context.Context) error) error {
	var g errgroup.Group
	g.Go(func() error {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
				if err := beat(ctx); err != nil {
					return fmt.Errorf("heartbeat: %w", err)
				}
			}
		}
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
