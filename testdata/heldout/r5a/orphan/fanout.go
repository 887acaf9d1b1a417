package orphan

import (
	"context"
	"fmt"
	"sync"
)

// Fragment is one piece of a composed page.
type Fragment struct {
	Name string
	URL  string
}

// FragmentFetcher fetches one fragment body.
type FragmentFetcher interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

// RenderFragments fetches fragments concurrently and returns on the first error. The error channel is
// unbuffered: the first failure is received, but every later failing fragment (they all fail once
// cancel runs) blocks on its send, and the wg.Wait helper behind them never finishes either.
// From: BlakeWilliams/viewproxy#65
// bug: orphansend
func RenderFragments(ctx context.Context, frags []Fragment, f FragmentFetcher) ([][]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errCh := make(chan error)
	bodies := make([][]byte, len(frags))
	var wg sync.WaitGroup
	for i, fr := range frags {
		wg.Go(func() {
			b, err := f.Fetch(ctx, fr.URL)
			if err != nil {
				errCh <- fmt.Errorf("fragment %s: %w", fr.Name, err)
				return
			}
			bodies[i] = b
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case err := <-errCh:
		return nil, err
	case <-done:
		select {
		case err := <-errCh:
			return nil, err
		default:
			return bodies, nil
		}
	}
}

// RenderFragmentsBuffered sizes the error channel for every fragment, so no failing fetch ever waits
// for a receiver and the wg.Wait helper always completes.
// ok: orphansend
func RenderFragmentsBuffered(ctx context.Context, frags []Fragment, f FragmentFetcher) ([][]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errCh := make(chan error, len(frags))
	bodies := make([][]byte, len(frags))
	var wg sync.WaitGroup
	for i, fr := range frags {
		wg.Go(func() {
			b, err := f.Fetch(ctx, fr.URL)
			if err != nil {
				errCh <- fmt.Errorf("fragment %s: %w", fr.Name, err)
				return
			}
			bodies[i] = b
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case err := <-errCh:
		return nil, err
	case <-done:
		select {
		case err := <-errCh:
			return nil, err
		default:
			return bodies, nil
		}
	}
}

// Partition is one key range to scan.
type Partition struct {
	ID    int
	Start string
	End   string
}

// Summary is a scanned partition's digest.
type Summary struct {
	Partition int
	Rows      int
}

// Scanner scans one partition.
type Scanner interface {
	Scan(ctx context.Context, p Partition) (Summary, error)
}

// scanResult is one worker's output.
type scanResult struct {
	summary Summary
	err     error
}

// ScanPartitions runs a fixed worker pool over the partitions and returns on the first failed scan.
// The workers deliver on an unbuffered results channel; after the early return nobody receives, so
// every worker blocks on its next send and the pool never drains.
// From: ava-labs/icm-services#827
// bug: orphansend
func ScanPartitions(ctx context.Context, parts []Partition, workers int, sc Scanner) ([]Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Partition, len(parts))
	for _, p := range parts {
		jobs <- p
	}
	close(jobs)
	results := make(chan scanResult)
	for range workers {
		go func() {
			for p := range jobs {
				s, err := sc.Scan(ctx, p)
				results <- scanResult{summary: s, err: err}
			}
		}()
	}
	out := make([]Summary, 0, len(parts))
	for range parts {
		r := <-results
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.summary)
	}
	return out, nil
}

// ScanPartitionsBuffered gives results one slot per partition, so after the early return (which
// cancels ctx) the workers finish the remaining jobs quickly and exit without waiting on a receiver.
// ok: orphansend
func ScanPartitionsBuffered(ctx context.Context, parts []Partition, workers int, sc Scanner) ([]Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Partition, len(parts))
	for _, p := range parts {
		jobs <- p
	}
	close(jobs)
	results := make(chan scanResult, len(parts))
	for range workers {
		go func() {
			for p := range jobs {
				s, err := sc.Scan(ctx, p)
				results <- scanResult{summary: s, err: err}
			}
		}()
	}
	out := make([]Summary, 0, len(parts))
	for range parts {
		r := <-results
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.summary)
	}
	return out, nil
}

// CatalogProvider watches a service catalog through two long-poll loops.
type CatalogProvider struct {
	watchServices func(ctx context.Context) error
	watchHealth   func(ctx context.Context) error
}

// watchOnce runs both watchers and returns when either fails or the parent ends. The shared error
// channel has one slot for two senders: when the parent is canceled both watchers return an error,
// the first fills the buffer and the second blocks forever because watchOnce already left.
// From: traefik/traefik#3036
// bug: orphansend
func (p *CatalogProvider) watchOnce(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errCh := make(chan error, 1)
	go func() { errCh <- p.watchServices(ctx) }()
	go func() { errCh <- p.watchHealth(ctx) }()
	select {
	case err := <-errCh:
		return err
	case <-parent.Done():
		return parent.Err()
	}
}

// watchOnceSized gives the channel one slot per sender, so neither watcher can be stranded.
// ok: orphansend
func (p *CatalogProvider) watchOnceSized(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errCh := make(chan error, 2)
	go func() { errCh <- p.watchServices(ctx) }()
	go func() { errCh <- p.watchHealth(ctx) }()
	select {
	case err := <-errCh:
		return err
	case <-parent.Done():
		return parent.Err()
	}
}

// Token is one NFT-like token record.
type Token struct {
	ID    string
	Owner string
}

// TokenProvider lists tokens from one chain indexer.
type TokenProvider interface {
	Name() string
	Tokens(ctx context.Context) ([]Token, error)
}

// providerResult is one provider's answer.
type providerResult struct {
	name string
	toks []Token
	err  error
}

// FirstPage merges providers until it has limit tokens and returns as soon as the page is full. The
// providers still running then block on the unbuffered results channel, so only one page of results
// is ever produced and the stragglers leak.
// From: gallery-so/go-gallery#1419
// bug: orphansend
func FirstPage(ctx context.Context, providers []TokenProvider, limit int) ([]Token, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan providerResult)
	for _, p := range providers {
		go func() {
			toks, err := p.Tokens(ctx)
			results <- providerResult{name: p.Name(), toks: toks, err: err}
		}()
	}
	var page []Token
	for range providers {
		r := <-results
		if r.err != nil {
			return nil, fmt.Errorf("provider %s: %w", r.name, r.err)
		}
		page = append(page, r.toks...)
		if len(page) >= limit {
			return page[:limit], nil
		}
	}
	return page, nil
}

// FirstPageBuffered gives every provider its own slot in results, so returning early with a full
// page never strands a provider.
// ok: orphansend
func FirstPageBuffered(ctx context.Context, providers []TokenProvider, limit int) ([]Token, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan providerResult, len(providers))
	for _, p := range providers {
		go func() {
			toks, err := p.Tokens(ctx)
			results <- providerResult{name: p.Name(), toks: toks, err: err}
		}()
	}
	var page []Token
	for range providers {
		r := <-results
		if r.err != nil {
			return nil, fmt.Errorf("provider %s: %w", r.name, r.err)
		}
		page = append(page, r.toks...)
		if len(page) >= limit {
			return page[:limit], nil
		}
	}
	return page, nil
}

// Snapshot is one stored snapshot to restore.
type Snapshot struct {
	ID   string
	Path string
}

// Restorer restores one snapshot.
type Restorer interface {
	Restore(ctx context.Context, s Snapshot) error
}

// RestoreSnapshots runs a worker pool and returns on the first restore error. The error channel is
// sized by the number of workers, not the number of snapshots: after the first error cancel makes
// every remaining restore fail, more errors arrive than the buffer holds, and the workers block on
// their sends (and the wg.Wait helper with them) for good.
// From: hashicorp/vault#12933
// bug: orphansend
func RestoreSnapshots(ctx context.Context, snaps []Snapshot, workers int, r Restorer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Snapshot, len(snaps))
	for _, s := range snaps {
		jobs <- s
	}
	close(jobs)
	errCh := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for s := range jobs {
				if err := r.Restore(ctx, s); err != nil {
					errCh <- fmt.Errorf("restore %s: %w", s.ID, err)
				}
			}
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case err := <-errCh:
		return err
	case <-done:
		select {
		case err := <-errCh:
			return err
		default:
			return nil
		}
	}
}

// RestoreSnapshotsSized sizes the error channel by the number of snapshots, the corrected length
// from the upstream fix, so every possible error fits.
// ok: orphansend
func RestoreSnapshotsSized(ctx context.Context, snaps []Snapshot, workers int, r Restorer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Snapshot, len(snaps))
	for _, s := range snaps {
		jobs <- s
	}
	close(jobs)
	errCh := make(chan error, len(snaps))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for s := range jobs {
				if err := r.Restore(ctx, s); err != nil {
					errCh <- fmt.Errorf("restore %s: %w", s.ID, err)
				}
			}
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case err := <-errCh:
		return err
	case <-done:
		select {
		case err := <-errCh:
			return err
		default:
			return nil
		}
	}
}
