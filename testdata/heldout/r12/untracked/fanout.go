package untracked

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
)

// NodeStatus is the health of one cluster member.
type NodeStatus struct {
	Name    string
	Healthy bool
}

// PeerClient queries one peer's status.
type PeerClient interface {
	Name() string
	Status(ctx context.Context) (NodeStatus, error)
}

// StatusAgent aggregates the cluster status.
type StatusAgent struct {
	peers []PeerClient
}

type peerResult struct {
	status NodeStatus
	err    error
}

// CollectStatus queries every peer concurrently.
// From: gravitational/satellite#133
// bug: untrackedgo
func (a *StatusAgent) CollectStatus(ctx context.Context) ([]NodeStatus, error) {
	results := make(chan peerResult, len(a.peers))
	for _, p := range a.peers {
		go func() {
			st, err := p.Status(ctx)
			if err != nil {
				err = fmt.Errorf("peer %s: %w", p.Name(), err)
			}
			results <- peerResult{status: st, err: err}
		}()
	}
	out := make([]NodeStatus, 0, len(a.peers))
	for range a.peers {
		select {
		case r := <-results:
			if r.err != nil {
				return nil, r.err
			}
			out = append(out, r.status)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// CollectStatusNearMiss waits for every query before returning.
// ok: untrackedgo
func (a *StatusAgent) CollectStatusNearMiss(ctx context.Context) ([]NodeStatus, error) {
	results := make(chan peerResult, len(a.peers))
	var wg sync.WaitGroup
	for _, p := range a.peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := p.Status(ctx)
			if err != nil {
				err = fmt.Errorf("peer %s: %w", p.Name(), err)
			}
			results <- peerResult{status: st, err: err}
		}()
	}
	wg.Wait()
	close(results)
	out := make([]NodeStatus, 0, len(a.peers))
	var errs []error
	for r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		out = append(out, r.status)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Profile is a cloud credentials profile.
type Profile struct {
	Name string
}

// CredentialSource refreshes one profile's credentials.
type CredentialSource interface {
	Refresh(ctx context.Context, p Profile) error
}

// Refresher refreshes credential profiles and remembers the outcome.
type Refresher struct {
	src    CredentialSource
	mu     sync.Mutex
	result map[string]error
}

// record stores the refresh outcome for a profile.
// ok: untrackedgo
func (r *Refresher) record(name string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.result == nil {
		r.result = make(map[string]error)
	}
	r.result[name] = err
}

// RefreshAll refreshes every profile concurrently.
// From: fwdcloudsec/granted#25
// bug: untrackedgo
func (r *Refresher) RefreshAll(ctx context.Context, profiles iter.Seq[Profile]) {
	for p := range profiles {
		go func() {
			r.record(p.Name, r.src.Refresh(ctx, p))
		}()
	}
}

// RefreshAllNearMiss waits for every refresh before returning.
// ok: untrackedgo
func (r *Refresher) RefreshAllNearMiss(ctx context.Context, profiles iter.Seq[Profile]) {
	var wg sync.WaitGroup
	for p := range profiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.record(p.Name, r.src.Refresh(ctx, p))
		}()
	}
	wg.Wait()
}

// Walker walks a directory tree.
type Walker interface {
	Walk(ctx context.Context, root string, fn func(path string) error) error
}

// Globber expands recursive glob patterns over several roots.
type Globber struct {
	fs Walker
}

type globItem struct {
	path string
	err  error
}

// Glob walks every root concurrently and returns the matching paths.
// From: mattn/go-zglob#24
// bug: untrackedgo
func (g *Globber) Glob(ctx context.Context, roots []string, match func(string) bool) ([]string, error) {
	items := make(chan globItem)
	var wg sync.WaitGroup
	for _, root := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := g.fs.Walk(ctx, root, func(p string) error {
				if match(p) {
					items <- globItem{path: p}
				}
				return nil
			})
			if err != nil {
				items <- globItem{err: fmt.Errorf("walk %s: %w", root, err)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(items)
	}()
	var out []string
	for it := range items {
		if it.err != nil {
			return nil, it.err
		}
		out = append(out, it.path)
	}
	return out, nil
}

// GlobNearMiss cancels the other walkers on error and drains until they finish.
// ok: untrackedgo
func (g *Globber) GlobNearMiss(ctx context.Context, roots []string, match func(string) bool) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := make(chan globItem)
	var wg sync.WaitGroup
	for _, root := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := g.fs.Walk(ctx, root, func(p string) error {
				if match(p) {
					items <- globItem{path: p}
				}
				return nil
			})
			if err != nil {
				items <- globItem{err: fmt.Errorf("walk %s: %w", root, err)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(items)
	}()
	var out []string
	var firstErr error
	for it := range items {
		if it.err != nil {
			if firstErr == nil {
				firstErr = it.err
				cancel()
			}
			continue
		}
		if firstErr == nil {
			out = append(out, it.path)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}
