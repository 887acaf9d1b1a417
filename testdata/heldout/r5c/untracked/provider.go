package untracked

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// FlagSet is one fetched set of feature flags.
type FlagSet map[string]bool

// Provider refreshes flag sets and notifies registered handlers.
type Provider struct {
	mu       sync.Mutex
	current  map[string]FlagSet
	handlers []func(set string, flags FlagSet)
	load     func(ctx context.Context, set string) (FlagSet, error)
}

// fetch loads a set and reports whether it changed.
// ok: untrackedgo
func (p *Provider) fetch(ctx context.Context, set string) (FlagSet, bool, error) {
	flags, err := p.load(ctx, set)
	if err != nil {
		return nil, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old, had := p.current[set]
	changed := !had || len(old) != len(flags)
	p.current[set] = flags
	return flags, changed, nil
}

// notify calls every registered handler.
// ok: untrackedgo
func (p *Provider) notify(set string, flags FlagSet) {
	p.mu.Lock()
	hs := append([]func(string, FlagSet){}, p.handlers...)
	p.mu.Unlock()
	for _, h := range hs {
		h(set, flags)
	}
}

// Shutdown unregisters every handler.
// ok: untrackedgo
func (p *Provider) Shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handlers = nil
}

// Refresh fetches every flag set under an errgroup. For a changed set the
// group callback fires `go p.notify(...)`, outside the group, so g.Wait and
// Refresh return while notifications are still running, and a Shutdown right
// after Refresh races handlers that are still being called.
// From: open-feature/go-sdk-contrib#716
// bug: untrackedgo
func (p *Provider) Refresh(ctx context.Context, sets []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, set := range sets {
		g.Go(func() error {
			flags, changed, err := p.fetch(gctx, set)
			if err != nil {
				return err
			}
			if changed {
				go p.notify(set, flags)
			}
			return nil
		})
	}
	return g.Wait()
}

// RefreshAll is the near-miss of Refresh: notify runs inside the group
// callback, so g.Wait covers it.
// From: open-feature/go-sdk-contrib#716
// ok: untrackedgo
func (p *Provider) RefreshAll(ctx context.Context, sets []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, set := range sets {
		g.Go(func() error {
			flags, changed, err := p.fetch(gctx, set)
			if err != nil {
				return err
			}
			if changed {
				p.notify(set, flags)
			}
			return nil
		})
	}
	return g.Wait()
}
