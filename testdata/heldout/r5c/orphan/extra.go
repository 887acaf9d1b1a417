package orphan

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Resolver looks up hosts.
type Resolver struct {
	lookup func(ctx context.Context, host string) ([]string, error)
}

// LookupWithin resolves host within d. The answer channel is unbuffered, but
// the give-up path receives the pending answer before returning (lookup
// honours the canceled ctx and returns promptly), so the send always has a
// receiver.
// ok: orphansend
func (r *Resolver) LookupWithin(ctx context.Context, host string, d time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type answer struct {
		addrs []string
		err   error
	}
	ch := make(chan answer)
	go func() {
		addrs, err := r.lookup(ctx, host)
		ch <- answer{addrs, err}
	}()
	select {
	case a := <-ch:
		return a.addrs, a.err
	case <-ctx.Done():
		<-ch
		return nil, ctx.Err()
	}
}

// FirstHealthy probes backends in parallel and returns the first healthy one.
// Every probe reports with a select that also watches ctx.Done, and the
// deferred cancel closes it on every return, so the probes that lose the race
// never block on their send; the deferred wg.Wait (run after cancel) joins
// them. A probe failure only means "not healthy"; if
// the context itself ended, that is what is returned.
// ok: orphansend
func FirstHealthy(ctx context.Context, backends []string, probe func(context.Context, string) error) (string, error) {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan string)
	for _, b := range backends {
		wg.Go(func() {
			healthy := ""
			if probe(ctx, b) == nil {
				healthy = b
			}
			select {
			case results <- healthy:
			case <-ctx.Done():
			}
		})
	}
	for range backends {
		select {
		case b := <-results:
			if b != "" {
				return b, nil
			}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no healthy backend")
}
