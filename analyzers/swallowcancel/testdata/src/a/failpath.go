package a

import (
	"context"
	"errors"
	"log"
	"net/http"

	"store"
)

var errBatch = errors.New("batch failed")

// Near-miss: a best-effort requeue on the way out of a failure; the
// function returns the failure, whatever the requeue does.
func flushFailed(ctx context.Context, keys []string, retryable bool) error {
	if err := store.Put(ctx, "batch", "v"); err != nil {
		if retryable {
			_ = store.Put(ctx, "requeue", "v")
		}
		log.Println("flush failed")
		return err
	}
	return nil
}

// Near-miss: the same inside a loop: the requeue is followed by the
// return of the failure, so the loop does not go on.
func readReplies(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if _, err := store.Get(ctx, k); err != nil {
			if k != "" {
				_ = store.Put(ctx, "requeue", k)
			}
			return errBatch
		}
	}
	return nil
}

// Near-miss: an explicit `_ =` in a function with nothing to return the
// error with: a decision, as outside loops.
func closeAll(ctx context.Context, keys []string) {
	for _, k := range keys {
		_ = store.Put(ctx, "closed", k)
	}
}

// A bare call in such a loop is still an oversight.
func closeAllBare(ctx context.Context, keys []string) {
	for _, k := range keys {
		store.Put(ctx, "closed", k) // want `the error of store.Put may carry the cancellation of ctx and is dropped, so the loop over keys keeps calling it after ctx is canceled`
	}
}

// The failure path returns nil: one finding, on the branch that turns the
// failure into success, not a second on the requeue.
func flushQuiet(ctx context.Context, retryable bool) error {
	if err := store.Put(ctx, "batch", "v"); err != nil { // want `err may carry the cancellation of ctx and this branch returns a nil error instead`
		if retryable {
			_ = store.Put(ctx, "requeue", "v")
		}
		return nil
	}
	return nil
}

// Near-miss: a bare call in a goroutine nobody waits on for a
// result; the goroutine has no caller to mislead.
func cancelAsync(ctx context.Context, done chan struct{}) {
	go func() {
		defer close(done)
		store.Put(ctx, "cancel", "v")
		log.Println("cancel request sent")
	}()
}

// A goroutine that goes on to release what the failed call did not
// acquire.
func (p *pool) handleAsync(ctx context.Context, job string) {
	go func() {
		p.sem.Acquire(ctx, 1) // want `the error of p.sem.Acquire may carry the cancellation of ctx and is dropped, so function literal goes on as if the call succeeded`
		defer p.sem.Release(1)
		log.Println(job)
	}()
}

// Near-miss: failover across replicas; the last failure is returned after
// the loop, cancellation included.
func firstReplica(ctx context.Context, replicas []string) (string, error) {
	var v string
	var err error
	for _, r := range replicas {
		if v, err = store.Get(ctx, r); err != nil {
			continue
		}
		return v, nil
	}
	return "", err
}

// Near-miss: the same with a named result.
func firstReplicaNamed(ctx context.Context, replicas []string) (v string, err error) {
	for _, r := range replicas {
		if v, err = store.Get(ctx, r); err != nil {
			continue
		}
		break
	}
	return
}

// The error is declared in the loop: each failure is lost, and the loop
// ends in success.
func allReplicas(ctx context.Context, replicas []string) error {
	for _, r := range replicas {
		if _, err := store.Get(ctx, r); err != nil { // want `err may carry the cancellation of ctx and is only skipped, so the loop over replicas goes on after cancellation`
			continue
		}
	}
	return nil
}

func watchHealth(ctx context.Context, backoff func(context.Context, int) bool) error {
	// Near-miss: a watcher whose only way to end without an error is its
	// context ending; nil means stopped, and there is no other success.
	// (In the body: a doc comment saying so would make it quiet anyway.)
	tries := 0
retry:
	for {
		if tries > 0 && !backoff(ctx, tries) {
			return nil
		}
		tries++
		if ctx.Err() != nil {
			return nil
		}
		for {
			if _, err := store.Get(ctx, "health"); err != nil {
				if errors.Is(err, errBatch) {
					return err
				}
				continue retry
			}
		}
	}
}

func fetchPages(ctx context.Context) error {
	// A paging loop that also ends in success when the pages run out: nil
	// on cancellation reads as "all pages fetched".
	for {
		if ctx.Err() != nil { // want `when ctx has ended this branch returns a nil error, so fetchPages reports success for work that was canceled`
			return nil
		}
		page, err := store.Get(ctx, "next")
		if err != nil {
			return err
		}
		if page == "" {
			return nil
		}
	}
}

// Near-miss: the failure ends the program.
func putAllOrDie(ctx context.Context, ks []string) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Fatalf("put %s: %v", k, err)
		}
	}
	return nil
}

// Near-miss: the handler's last act on this path; nothing goes on after
// the call.
func handleStream(ctx context.Context, known bool) {
	if known {
		store.Put(ctx, "rpc", "v")
		return
	}
	log.Println("unknown service")
}

type app struct {
	hooks []func(context.Context) error
}

func (a *app) shutdownMetrics(ctx context.Context) error { return store.Put(ctx, "metrics", "flush") }

// Near-miss: Stop runs every stop hook whatever the others did, and logs
// the failures on the way out.
func (a *app) Stop(ctx context.Context) error {
	for _, h := range a.hooks {
		if err := h(ctx); err != nil {
			log.Println("stop hook:", err)
		}
	}
	if err := a.shutdownMetrics(ctx); err != nil {
		log.Println("metrics:", err)
	}
	return nil
}

// The same steps in a function that is not a teardown.
func (a *app) Reload(ctx context.Context) error {
	for _, h := range a.hooks {
		if err := h(ctx); err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Println("reload hook:", err)
		}
	}
	return nil
}

func proxy(ctx context.Context) error { return store.Put(ctx, "upstream", "v") }

// Near-miss: the client that canceled is answered with 499; the request is
// done and the upstream is not to blame.
func proxyOnce(ctx context.Context, w http.ResponseWriter) (bool, error) {
	err := proxy(ctx)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, context.Canceled) {
		w.WriteHeader(499)
		return true, nil
	}
	return false, err
}

// Without an answer the request ends in silence and the caller counts it
// done.
func proxyQuiet(ctx context.Context) (bool, error) {
	err := proxy(ctx)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error`
		return true, nil
	}
	return false, err
}

func retryNotify(ctx context.Context, tick <-chan struct{}) error {
	// Near-miss: inside the Done clause ctx.Err() is never nil, so the
	// last return is never reached.
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			if lastErr != nil {
				return errors.Join(errBatch, lastErr)
			}
			return nil
		case <-tick:
		}
		lastErr = proxy(ctx)
		if lastErr == nil {
			return nil
		}
	}
}

// Here the error tested is not the context's.
func retryNotifyOther(ctx context.Context, tick <-chan struct{}) error {
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return lastErr
			}
			return nil // want `retryNotifyOther returns a nil error when ctx is done`
		case <-tick:
		}
		lastErr = proxy(ctx)
		if lastErr == nil {
			return nil
		}
	}
}

// fetchConfig reads the configuration; ctx must not be nil.
func fetchConfig(ctx context.Context) error {
	err := store.Put(ctx, "cfg", "v")
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error, so fetchConfig reports success`
		return nil
	}
	return err
}

type stream struct{ ctx context.Context }

func (st *stream) close() error { return store.Put(st.ctx, "close", "v") }

type streamSet struct{ streams []*stream }

// Close closes every stream; canceling them is what closing does.
func (w *streamSet) Close() (err error) {
	for _, st := range w.streams {
		if cerr := st.close(); cerr != nil {
			err = cerr
		}
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// Shutdown is given a deadline by its caller: hiding its end hides that
// the shutdown did not finish.
func (w *streamSet) Shutdown(ctx context.Context) error {
	err := store.Put(ctx, "shutdown", "v")
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch sets it to nil, so Shutdown reports success`
		err = nil
	}
	return err
}

// A worker that returns ctx.Err() when its select sees the end, but turns
// the same end into nil when the call reports it: the two stops disagree,
// and a caller that reads nil as "drained" is told so on the second.
func pullInconsistent(ctx context.Context, out chan<- string) error {
	for {
		v, err := store.Get(ctx, "next")
		if err != nil {
			if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error, so pullInconsistent reports success for work that was canceled`
				return nil
			}
			return err
		}
		select {
		case out <- v:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Near-miss: the same worker reporting both stops as the context's end.
func pullConsistent(ctx context.Context, out chan<- string) error {
	for {
		v, err := store.Get(ctx, "next")
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return context.Cause(ctx)
			}
			return err
		}
		select {
		case out <- v:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
