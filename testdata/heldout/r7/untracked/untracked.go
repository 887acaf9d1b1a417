// Package untracked holds go statements that nothing joins or bounds, so
// the work outlives its owner, and the near-misses that join them.
package untracked

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ErrNotRepo reports a directory that is not a git checkout.
var ErrNotRepo = errors.New("not a git repository")

// Informer watches one resource kind until stop is closed.
type Informer struct {
	Name string
	Run  func(stop <-chan struct{})
}

// Controller runs a set of informers.
type Controller struct {
	wg        sync.WaitGroup
	Informers []Informer
}

// Run starts every informer in its own goroutine, which registers itself
// with the WaitGroup from inside the goroutine. When stop is closed early
// (a fast shutdown during startup) Wait can run before some of those Add
// calls, returns at once, and the operator exits while informers are still
// writing to the cluster.
// From: zalando/postgres-operator#63
// bug: untrackedgo
func (c *Controller) Run(stop <-chan struct{}) {
	for _, inf := range c.Informers {
		go func() {
			log.Printf("starting informer %s", inf.Name)
			c.wg.Add(1)
			defer c.wg.Done()
			inf.Run(stop)
		}()
	}
	<-stop
	c.wg.Wait()
	log.Printf("all informers stopped")
}

// RunTracked calls Add before each go statement, so Wait always covers
// every informer.
// ok: untrackedgo
func (c *Controller) RunTracked(stop <-chan struct{}) {
	for _, inf := range c.Informers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			log.Printf("starting informer %s", inf.Name)
			inf.Run(stop)
		}()
	}
	<-stop
	c.wg.Wait()
	log.Printf("all informers stopped")
}

// MergeScheduler merges recorded segments once they are due. Stop cancels
// the scheduler's context and waits on wg.
type MergeScheduler struct {
	mu    sync.Mutex
	wg    sync.WaitGroup
	due   []string
	Merge func(ctx context.Context, segment string) error
}

// TriggerDue launches one merge goroutine per due segment but never adds
// them to the scheduler's WaitGroup, so Stop returns while merges are still
// writing output files and the storage layer is torn down under them.
// From: Mi-Bee-Studio/MiBeeNvr#163
// bug: untrackedgo
func (s *MergeScheduler) TriggerDue(ctx context.Context) {
	s.mu.Lock()
	due := s.due
	s.due = nil
	s.mu.Unlock()
	for _, seg := range due {
		go func() {
			if err := s.Merge(ctx, seg); err != nil {
				log.Printf("merge %s: %v", seg, err)
			}
		}()
	}
}

// TriggerDueTracked adds each merge to the WaitGroup that Stop waits on.
// ok: untrackedgo
func (s *MergeScheduler) TriggerDueTracked(ctx context.Context) {
	s.mu.Lock()
	due := s.due
	s.due = nil
	s.mu.Unlock()
	for _, seg := range due {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.Merge(ctx, seg); err != nil {
				log.Printf("merge %s: %v", seg, err)
			}
		}()
	}
}

// Event is a chain event the mempool reacts to.
type Event struct {
	Kind string
	TxID string
}

// Mempool holds pending transactions.
type Mempool struct {
	mu     sync.Mutex
	txs    map[string]time.Time
	Events <-chan Event
	TTL    time.Duration
}

// Start launches the chain-event consumer and the expiry sweeper and
// returns a stop function. Stop only cancels: it does not wait, so
// shutdown goes on to close the ledger while both goroutines may still be
// inside a map update or an event handler.
// From: blinklabs-io/dingo#2293
// bug: untrackedgo
func (m *Mempool) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-m.Events:
				m.mu.Lock()
				delete(m.txs, ev.TxID)
				m.mu.Unlock()
			}
		}
	}()
	go func() {
		t := time.NewTicker(m.TTL / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				m.mu.Lock()
				for id, at := range m.txs {
					if now.Sub(at) > m.TTL {
						delete(m.txs, id)
					}
				}
				m.mu.Unlock()
			}
		}
	}()
	return cancel
}

// StartTracked returns a stop function that cancels and then waits for
// both goroutines to exit.
// ok: untrackedgo
func (m *Mempool) StartTracked(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-m.Events:
				m.mu.Lock()
				delete(m.txs, ev.TxID)
				m.mu.Unlock()
			}
		}
	}()
	go func() {
		defer wg.Done()
		t := time.NewTicker(m.TTL / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				m.mu.Lock()
				for id, at := range m.txs {
					if now.Sub(at) > m.TTL {
						delete(m.txs, id)
					}
				}
				m.mu.Unlock()
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// Sitemap renders to XML.
type Sitemap struct {
	Name   string
	Render func(ctx context.Context) ([]byte, error)
}

// SitemapIndex groups sitemaps.
type SitemapIndex struct {
	Sitemaps []Sitemap
}

// SaveAll renders and writes every sitemap in parallel. A goroutine whose
// render fails (for example because ctx expired) returns before wg.Done,
// so wg.Wait never returns and the request handler hangs for good.
// From: sabloger/sitemap-generator#10
// bug: untrackedgo
func (s *SitemapIndex) SaveAll(ctx context.Context, dir string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(s.Sitemaps))
	for _, sm := range s.Sitemaps {
		wg.Add(1)
		go func() {
			data, err := sm.Render(ctx)
			if err != nil {
				errs <- fmt.Errorf("render %s: %w", sm.Name, err)
				return
			}
			errs <- os.WriteFile(filepath.Join(dir, sm.Name+".xml"), data, 0o644)
			wg.Done()
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// SaveAllDeferred defers wg.Done at the top of each goroutine.
// ok: untrackedgo
func (s *SitemapIndex) SaveAllDeferred(ctx context.Context, dir string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(s.Sitemaps))
	for _, sm := range s.Sitemaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := sm.Render(ctx)
			if err != nil {
				errs <- fmt.Errorf("render %s: %w", sm.Name, err)
				return
			}
			errs <- os.WriteFile(filepath.Join(dir, sm.Name+".xml"), data, 0o644)
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// Repo is a local checkout.
type Repo struct {
	Path  string
	Check func(ctx context.Context) (string, error)
}

// Status is one repository's state.
type Status struct {
	Path  string
	State string
	Err   error
}

// CheckRepos checks every repository concurrently. The switch returns from
// the goroutine for directories that are not repositories, skipping
// wg.Done, so Wait never returns, out is never closed, and the CLI hangs
// after printing the other results.
// From: stevenjack/cig#34
// bug: untrackedgo
func CheckRepos(ctx context.Context, repos []Repo, out chan<- Status) {
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Add(1)
		go func() {
			st, err := r.Check(ctx)
			switch {
			case errors.Is(err, ErrNotRepo):
				return
			case err != nil:
				out <- Status{Path: r.Path, Err: err}
			default:
				out <- Status{Path: r.Path, State: st}
			}
			wg.Done()
		}()
	}
	wg.Wait()
	close(out)
}

// CheckReposDeferred defers wg.Done so every path through the switch
// counts.
// ok: untrackedgo
func CheckReposDeferred(ctx context.Context, repos []Repo, out chan<- Status) {
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := r.Check(ctx)
			switch {
			case errors.Is(err, ErrNotRepo):
				return
			case err != nil:
				out <- Status{Path: r.Path, Err: err}
			default:
				out <- Status{Path: r.Path, State: st}
			}
		}()
	}
	wg.Wait()
	close(out)
}

// Watcher renders templates when dependency data arrives.
type Watcher struct {
	mu      sync.Mutex
	latest  string
	DataCh  chan string
	stopped chan struct{}
}

// Wait starts a forwarder goroutine that copies dependency data into the
// watcher and returns when the first value lands or ctx ends. The forwarder
// only exits when DataCh is closed, which Stop never does, so every Wait
// call leaves a goroutine behind that outlives the watcher.
// From: hashicorp/hcat#8
// bug: untrackedgo
func (w *Watcher) Wait(ctx context.Context) error {
	first := make(chan struct{})
	var once sync.Once
	go func() {
		for v := range w.DataCh {
			w.mu.Lock()
			w.latest = v
			w.mu.Unlock()
			once.Do(func() { close(first) })
		}
	}()
	select {
	case <-first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitBounded has the forwarder also watch the stopped channel and the
// caller's context, so it ends with the watcher or the wait.
// ok: untrackedgo
func (w *Watcher) WaitBounded(ctx context.Context) error {
	first := make(chan struct{})
	var once sync.Once
	go func() {
		for {
			select {
			case <-w.stopped:
				return
			case <-ctx.Done():
				return
			case v := <-w.DataCh:
				w.mu.Lock()
				w.latest = v
				w.mu.Unlock()
				once.Do(func() { close(first) })
			}
		}
	}()
	select {
	case <-first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Snapshot copies a file in the background while the caller prepares the
// manifest. The go statement has no WaitGroup, but it is joined: the caller
// always receives from done before returning.
// ok: untrackedgo
func Snapshot(ctx context.Context, src, dst string, manifest func(ctx context.Context) error) error {
	done := make(chan error, 1)
	go func() {
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, data, 0o600)
		}
		done <- err
	}()
	merr := manifest(ctx)
	cerr := <-done
	if merr != nil {
		return fmt.Errorf("manifest: %w", merr)
	}
	return cerr
}

// Thumbnails renders images through a bounded errgroup; every g.Go
// goroutine is joined by g.Wait before the function returns.
// ok: untrackedgo
func Thumbnails(ctx context.Context, paths []string, render func(ctx context.Context, path string) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, p := range paths {
		g.Go(func() error {
			if err := render(gctx, p); err != nil {
				return fmt.Errorf("thumbnail %s: %w", p, err)
			}
			return nil
		})
	}
	return g.Wait()
}
