package untracked

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

type imageStore interface {
	Resize(ctx context.Context, path string, width int) (string, error)
}

// Thumbnailer resizes uploaded images with a fixed pool of workers.
type Thumbnailer struct {
	store   imageStore
	workers int
	width   int
}

// ResizeAll resizes every path and returns the generated thumbnail paths.
// From: gammazero/workerpool#7
// bug: untrackedgo
func (t *Thumbnailer) ResizeAll(ctx context.Context, paths []string) ([]string, error) {
	jobs := make(chan string)
	var mu sync.Mutex
	var out []string
	var errs []error

	for i := 0; i < t.workers; i++ {
		go func() {
			for p := range jobs {
				thumb, err := t.store.Resize(ctx, p, t.width)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", p, err))
				} else {
					out = append(out, thumb)
				}
				mu.Unlock()
			}
		}()
	}

	for _, p := range paths {
		select {
		case jobs <- p:
		case <-ctx.Done():
			close(jobs)
			return nil, ctx.Err()
		}
	}
	close(jobs)

	mu.Lock()
	defer mu.Unlock()
	return out, errors.Join(errs...)
}

// ResizeAllNearMiss waits for the pool to drain before reading results.
// ok: untrackedgo
func (t *Thumbnailer) ResizeAllNearMiss(ctx context.Context, paths []string) ([]string, error) {
	jobs := make(chan string)
	var mu sync.Mutex
	var out []string
	var errs []error
	var wg sync.WaitGroup

	for i := 0; i < t.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				thumb, err := t.store.Resize(ctx, p, t.width)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", p, err))
				} else {
					out = append(out, thumb)
				}
				mu.Unlock()
			}
		}()
	}

	var feedErr error
feed:
	for _, p := range paths {
		select {
		case jobs <- p:
		case <-ctx.Done():
			feedErr = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()

	if feedErr != nil {
		return nil, feedErr
	}
	return out, errors.Join(errs...)
}

// Job is one unit of work for a Runner.
type Job struct {
	ID   string
	Body []byte
}

// Runner executes jobs from a channel with bounded concurrency.
type Runner struct {
	limit int
	exec  func(ctx context.Context, j Job) error
}

// Run consumes in until it is closed or ctx ends.
// From: catmullet/go-workers#25
// bug: untrackedgo
func (r *Runner) Run(ctx context.Context, in <-chan Job) error {
	sem := make(chan struct{}, r.limit)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case j, ok := <-in:
			if !ok {
				return nil
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			go func() {
				defer func() { <-sem }()
				if err := r.exec(ctx, j); err != nil {
					log.Printf("job %s: %v", j.ID, err)
				}
			}()
		}
	}
}

// RunNearMiss waits for in-flight jobs before returning.
// ok: untrackedgo
func (r *Runner) RunNearMiss(ctx context.Context, in <-chan Job) error {
	sem := make(chan struct{}, r.limit)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case j, ok := <-in:
			if !ok {
				return nil
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if err := r.exec(ctx, j); err != nil {
					log.Printf("job %s: %v", j.ID, err)
				}
			}()
		}
	}
}

type blobFetcher interface {
	Fetch(ctx context.Context, key string) ([]byte, error)
}

// Prefetcher warms a local cache from a remote blob store.
type Prefetcher struct {
	remote blobFetcher
	mu     sync.Mutex
	cache  map[string][]byte
	limit  int
}

// ok: untrackedgo
func (p *Prefetcher) fetchInto(ctx context.Context, key string) error {
	b, err := p.remote.Fetch(ctx, key)
	if err != nil {
		return fmt.Errorf("prefetch %s: %w", key, err)
	}
	p.mu.Lock()
	p.cache[key] = b
	p.mu.Unlock()
	return nil
}

// Warm fetches keys concurrently and stops scheduling after the first failure.
// From: spacemeshos/go-spacemesh#2702
// bug: untrackedgo
func (p *Prefetcher) Warm(ctx context.Context, keys []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.limit)
	for _, key := range keys {
		if gctx.Err() != nil {
			return context.Cause(gctx)
		}
		if _, ok := p.cached(key); ok {
			continue
		}
		g.Go(func() error {
			return p.fetchInto(gctx, key)
		})
	}
	return g.Wait()
}

// WarmNearMiss always reaches Wait, even after a failure.
// ok: untrackedgo
func (p *Prefetcher) WarmNearMiss(ctx context.Context, keys []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.limit)
	for _, key := range keys {
		if gctx.Err() != nil {
			break
		}
		if _, ok := p.cached(key); ok {
			continue
		}
		g.Go(func() error {
			return p.fetchInto(gctx, key)
		})
	}
	return g.Wait()
}

// ok: untrackedgo
func (p *Prefetcher) cached(key string) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.cache[key]
	return b, ok
}

// Task is a unit of work run by RunAll.
type Task func(ctx context.Context) error

// RunAll runs tasks concurrently and reports the first failure.
// From: alitto/pond#68
// bug: untrackedgo
func RunAll(ctx context.Context, tasks []Task) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	errc := make(chan error, len(tasks))
	for i, task := range tasks {
		go func() {
			if err := task(ctx); err != nil {
				errc <- fmt.Errorf("task %d: %w", i, err)
				return
			}
			errc <- nil
		}()
	}
	for range tasks {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

// RunAllNearMiss cancels the rest on failure but waits for them to return.
// ok: untrackedgo
func RunAllNearMiss(ctx context.Context, tasks []Task) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	errc := make(chan error, len(tasks))
	for i, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := task(ctx); err != nil {
				errc <- fmt.Errorf("task %d: %w", i, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errc)
	return <-errc
}

// TaskGroup collects goroutines that share a cancel function.
type TaskGroup struct {
	wg     sync.WaitGroup
	cancel context.CancelFunc
	mu     sync.Mutex
	err    error
}

// ok: untrackedgo
func (g *TaskGroup) firstErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// Wait blocks until all tasks finish, cancelling them early if ctx ends.
// From: sumup-oss/go-pkgs#69
// bug: untrackedgo
func (g *TaskGroup) Wait(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		g.cancel()
	}()
	g.wg.Wait()
	if err := g.firstErr(); err != nil {
		return err
	}
	return ctx.Err()
}

// WaitNearMiss stops its watcher once the tasks are done.
// ok: untrackedgo
func (g *TaskGroup) WaitNearMiss(ctx context.Context) error {
	finished := make(chan struct{})
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		select {
		case <-ctx.Done():
			g.cancel()
		case <-finished:
		}
	}()
	g.wg.Wait()
	close(finished)
	<-watcherDone
	if err := g.firstErr(); err != nil {
		return err
	}
	return ctx.Err()
}

// Process is a long-running background component.
type Process interface {
	Name() string
	Run(shutdown <-chan struct{})
}

// Background owns a set of processes started together.
type Background struct {
	shutdown []chan struct{}
	finished []chan struct{}
}

// StartBackground launches every process with its own shutdown channel.
// From: bitmark-inc/bitmarkd#80
// bug: untrackedgo
func StartBackground(procs ...Process) *Background {
	b := &Background{}
	for _, p := range procs {
		shutdown := make(chan struct{})
		b.shutdown = append(b.shutdown, shutdown)
		go p.Run(shutdown)
		log.Printf("background: started %s", p.Name())
	}
	return b
}

// Stop signals every process to shut down.
// ok: untrackedgo
func (b *Background) Stop() {
	for _, ch := range b.shutdown {
		close(ch)
	}
	for _, done := range b.finished {
		<-done
	}
}

// StartBackgroundNearMiss records when each process has returned.
// ok: untrackedgo
func StartBackgroundNearMiss(procs ...Process) *Background {
	b := &Background{}
	for _, p := range procs {
		shutdown := make(chan struct{})
		finished := make(chan struct{})
		b.shutdown = append(b.shutdown, shutdown)
		b.finished = append(b.finished, finished)
		go func() {
			defer close(finished)
			p.Run(shutdown)
		}()
		log.Printf("background: started %s", p.Name())
	}
	return b
}

// ParallelMap applies fn to every item with at most limit goroutines.
// ok: untrackedgo
func ParallelMap[T, R any](ctx context.Context, items []T, limit int, fn func(context.Context, T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, it := range items {
		g.Go(func() error {
			r, err := fn(gctx, it)
			if err != nil {
				return err
			}
			out[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// StartJanitor evicts expired entries until ctx ends; the returned channel
// is closed once the loop has exited.
// ok: untrackedgo
func StartJanitor(ctx context.Context, every time.Duration, evict func(now time.Time) int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				if n := evict(now); n > 0 {
					log.Printf("janitor: evicted %d entries", n)
				}
			}
		}
	}()
	return done
}
