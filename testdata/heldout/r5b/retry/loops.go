package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync/atomic"
	"time"

	"heldoutr5b/internal/store"
)

// JobWatcher polls job status records.
type JobWatcher struct {
	c        *store.Client
	log      *log.Logger
	interval time.Duration
}

// terminal reports whether a job status is final.
// ok: retrycancel
func terminal(st []byte) bool {
	s := string(st)
	return s == "succeeded" || s == "failed"
}

// WaitDone polls until the job is terminal, logging read errors and trying
// again. The ctx.Done case's break only leaves the select, so after
// cancellation every Get fails at once, Done is always ready, and the loop
// spins at full speed forever.
// From: scionproto/scion#4860
// bug: retrycancel
func (w *JobWatcher) WaitDone(ctx context.Context, id string) (string, error) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		st, err := w.c.Get(ctx, "jobs/"+id)
		if err != nil {
			w.log.Printf("poll job %s: %v", id, err)
		} else if terminal(st) {
			return string(st), nil
		}
		select {
		case <-ctx.Done():
			break
		case <-t.C:
		}
	}
}

// WaitDoneReturn returns ctx.Err() from the same case.
// ok: retrycancel
func (w *JobWatcher) WaitDoneReturn(ctx context.Context, id string) (string, error) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		st, err := w.c.Get(ctx, "jobs/"+id)
		if err != nil {
			w.log.Printf("poll job %s: %v", id, err)
		} else if terminal(st) {
			return string(st), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// WaitDoneLabelled breaks out with a labelled break, which does leave the
// loop, and returns ctx.Err() after it.
// ok: retrycancel
func (w *JobWatcher) WaitDoneLabelled(ctx context.Context, id string) (string, error) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
poll:
	for {
		st, err := w.c.Get(ctx, "jobs/"+id)
		if err != nil {
			w.log.Printf("poll job %s: %v", id, err)
		} else if terminal(st) {
			return string(st), nil
		}
		select {
		case <-ctx.Done():
			break poll
		case <-t.C:
		}
	}
	return "", ctx.Err()
}

// Uplink keeps a session to an upstream proxy.
type Uplink struct {
	log     *log.Logger
	backoff time.Duration
	dial    func(context.Context) (*Session, error)
	stop    chan struct{}
	served  atomic.Int64
}

// Maintain redials whenever the session drops. Inside the failure branch
// the ctx.Done case breaks, intending to leave the reconnect loop, but it
// only leaves the select; the continue then redials immediately, so a
// canceled uplink busy-loops on failing dials.
// From: MetaCubeX/mihomo#2964
// bug: retrycancel
func (u *Uplink) Maintain(ctx context.Context) error {
	for {
		sess, err := u.dial(ctx)
		if err != nil {
			u.log.Printf("uplink dial: %v", err)
			t := time.NewTimer(u.backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				break
			case <-t.C:
			}
			continue
		}
		u.served.Add(1)
		select {
		case <-sess.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// MaintainReturn returns from the ctx.Done case instead of breaking.
// ok: retrycancel
func (u *Uplink) MaintainReturn(ctx context.Context) error {
	for {
		sess, err := u.dial(ctx)
		if err != nil {
			u.log.Printf("uplink dial: %v", err)
			t := time.NewTimer(u.backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			continue
		}
		u.served.Add(1)
		select {
		case <-sess.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// MaintainUntilClosed watches the uplink's own stop channel while backing
// off but not ctx.Done: a caller that cancels instead of calling Close
// gets a loop that redials (failing at once) every backoff, forever.
// From: OffchainLabs/nitro#3751
// bug: retrycancel
func (u *Uplink) MaintainUntilClosed(ctx context.Context) error {
	for {
		sess, err := u.dial(ctx)
		if err == nil {
			u.served.Add(1)
			select {
			case <-sess.Done():
				continue
			case <-u.stop:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		u.log.Printf("uplink dial: %v", err)
		t := time.NewTimer(u.backoff)
		select {
		case <-u.stop:
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// MaintainUntilClosedCtx adds the ctx.Done branch to the backoff select,
// as the nitro fix did.
// ok: retrycancel
func (u *Uplink) MaintainUntilClosedCtx(ctx context.Context) error {
	for {
		sess, err := u.dial(ctx)
		if err == nil {
			u.served.Add(1)
			select {
			case <-sess.Done():
				continue
			case <-u.stop:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		u.log.Printf("uplink dial: %v", err)
		t := time.NewTimer(u.backoff)
		select {
		case <-u.stop:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// MatchingClient long-polls task queues.
type MatchingClient struct {
	c       *store.Client
	retries atomic.Int64
}

// PollTask retries every error except not-found, up to seven attempts,
// without a wait. A canceled poll is one of "every error": the client
// fires six more calls on a context that is already done, and the retry
// metric reports them as backend trouble.
// From: temporalio/temporal#1845
// bug: retrycancel
func (m *MatchingClient) PollTask(ctx context.Context, queue string) ([]byte, error) {
	var err error
	for range 7 {
		var v []byte
		v, err = m.c.Get(ctx, "tasks/"+queue)
		if err == nil {
			return v, nil
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		m.retries.Add(1)
	}
	return nil, err
}

// PollTaskNoCtxRetry puts context errors on the non-retryable list.
// ok: retrycancel
func (m *MatchingClient) PollTaskNoCtxRetry(ctx context.Context, queue string) ([]byte, error) {
	var err error
	for range 7 {
		var v []byte
		v, err = m.c.Get(ctx, "tasks/"+queue)
		if err == nil {
			return v, nil
		}
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		m.retries.Add(1)
	}
	return nil, err
}

// Do calls fn until it succeeds or attempts run out, waiting backoff(i)
// between tries. It never consults ctx: the wait is a bare time.After and
// a context error from fn is retried like any other, so a canceled caller
// still sits through every remaining backoff.
// From: Rican7/retry#5
// bug: retrycancel
func Do[T any](ctx context.Context, attempts int, backoff func(int) time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		v, err = fn(ctx)
		if err == nil {
			return v, nil
		}
		<-time.After(backoff(i))
	}
	return zero, err
}

// DoCtx stops on a done context both before waiting and during the wait.
// ok: retrycancel
func DoCtx[T any](ctx context.Context, attempts int, backoff func(int) time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		v, err = fn(ctx)
		if err == nil {
			return v, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return zero, cerr
		}
		if werr := store.Sleep(ctx, backoff(i)); werr != nil {
			return zero, werr
		}
	}
	return zero, err
}

// LoadProfile fetches a profile through DoCtx with a method value.
// ok: retrycancel
func LoadProfile(ctx context.Context, c *store.Client, id string) ([]byte, error) {
	get := func(ctx context.Context) ([]byte, error) { return c.Get(ctx, "profiles/"+id) }
	return DoCtx(ctx, 4, func(i int) time.Duration { return time.Duration(i+1) * 100 * time.Millisecond }, get)
}

// Inbound receives messages from a topic subscription.
type Inbound struct {
	c      *store.Client
	topic  string
	log    *log.Logger
	handle func(store.Record)
}

// receive streams the topic once; it returns nil when the stream ends and
// the stream's error (ctx.Err() after cancellation) otherwise.
// ok: retrycancel
func (in *Inbound) receive(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	records, errs := in.c.Stream(ctx, "topics/"+in.topic+"/")
	for r := range records {
		in.handle(r)
	}
	return <-errs
}

// OpenInbound resubscribes whenever receive returns. Once ctx is canceled
// receive returns ctx.Err() immediately, the error is logged, and the loop
// resubscribes again, spinning forever.
// From: cloudevents/sdk-go#599
// bug: retrycancel
func (in *Inbound) OpenInbound(ctx context.Context) error {
	for {
		if err := in.receive(ctx); err != nil {
			in.log.Printf("receive %s: %v; resubscribing", in.topic, err)
		}
	}
}

// OpenInboundCtx leaves the loop as soon as the context is done.
// ok: retrycancel
func (in *Inbound) OpenInboundCtx(ctx context.Context) error {
	for {
		if err := in.receive(ctx); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			in.log.Printf("receive %s: %v; resubscribing", in.topic, err)
		}
	}
}

// FilteredWatcher keeps a local copy of a prefix by re-listing it.
type FilteredWatcher struct {
	c           *store.Client
	log         *log.Logger
	prefix      string
	resync      time.Duration
	maxRestarts int
	seen        map[string]int64
}

// handle records one listed record.
// ok: retrycancel
func (w *FilteredWatcher) handle(r store.Record) { w.seen[r.Key] = r.Rev }

// Run re-lists the prefix every resync. A failed listing restarts it via
// continue watch, which skips the only ctx check (the Sleep at the bottom).
// The cancellation error is treated like any watch error, so a stopped
// watcher restarts maxRestarts times before giving up.
// From: GoogleContainerTools/config-sync#792
// bug: retrycancel
func (w *FilteredWatcher) Run(ctx context.Context) error {
	restarts := 0
	var lastErr error
watch:
	for restarts < w.maxRestarts {
		for rec, err := range w.c.Scan(ctx, w.prefix) {
			if err != nil {
				lastErr = err
				restarts++
				w.log.Printf("watch %s: %v; restarting", w.prefix, err)
				continue watch
			}
			w.handle(rec)
		}
		restarts = 0
		if err := store.Sleep(ctx, w.resync); err != nil {
			return err
		}
	}
	return fmt.Errorf("watch %s: giving up after %d restarts: %w", w.prefix, restarts, lastErr)
}

// RunCtx returns the cancellation instead of restarting on it.
// ok: retrycancel
func (w *FilteredWatcher) RunCtx(ctx context.Context) error {
	restarts := 0
	var lastErr error
watch:
	for restarts < w.maxRestarts {
		for rec, err := range w.c.Scan(ctx, w.prefix) {
			if err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return fmt.Errorf("watch %s stopped: %w", w.prefix, cerr)
				}
				lastErr = err
				restarts++
				w.log.Printf("watch %s: %v; restarting", w.prefix, err)
				continue watch
			}
			w.handle(rec)
		}
		restarts = 0
		if err := store.Sleep(ctx, w.resync); err != nil {
			return err
		}
	}
	return fmt.Errorf("watch %s: giving up after %d restarts: %w", w.prefix, restarts, lastErr)
}

// Hammer drives load-test operations with a retry budget.
type Hammer struct {
	maxRetry time.Duration
}

// RetryOneOp retries op until its own budget runs out. The guard only
// stops for context.Canceled, so when the test's deadline passes
// (DeadlineExceeded) op fails instantly and the loop spins for the rest of
// the retry budget.
// From: google/certificate-transparency-go#928
// bug: retrycancel
func (h *Hammer) RetryOneOp(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(h.maxRetry)
	for {
		if err := ctx.Err(); err == context.Canceled {
			return err
		}
		err := op(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("op failed for %s: %w", h.maxRetry, err)
		}
	}
}

// RetryOneOpAnyErr stops on any context error, as the review suggested.
// ok: retrycancel
func (h *Hammer) RetryOneOpAnyErr(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(h.maxRetry)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := op(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("op failed for %s: %w", h.maxRetry, err)
		}
	}
}

// RevWatcher starts watches from the store's current revision.
type RevWatcher struct {
	c    *store.Client
	log  *log.Logger
	tick *time.Ticker
}

// currentRevision reads the revision marker for prefix.
// ok: retrycancel
func (w *RevWatcher) currentRevision(ctx context.Context, prefix string) (int64, error) {
	var rev int64
	for r, err := range w.c.Scan(ctx, prefix) {
		if err != nil {
			return 0, err
		}
		rev = max(rev, r.Rev)
	}
	return rev, nil
}

// initRev loops until err == nil. With a canceled context err is
// context.Canceled on every pass, so the loop logs "watch init ... context
// canceled" once per tick forever.
// From: k3s-io/kine#534
// bug: retrycancel
func (w *RevWatcher) initRev(ctx context.Context, prefix string) (int64, error) {
	for {
		rev, err := w.currentRevision(ctx, prefix)
		if err == nil {
			return rev, nil
		}
		w.log.Printf("watch init: prefix=%s, err=%v", prefix, err)
		<-w.tick.C
	}
}

// initRevCtx gives up once the context is done and waits on the ticker
// and ctx together.
// ok: retrycancel
func (w *RevWatcher) initRevCtx(ctx context.Context, prefix string) (int64, error) {
	for {
		rev, err := w.currentRevision(ctx, prefix)
		if err == nil {
			return rev, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return 0, cerr
		}
		w.log.Printf("watch init: prefix=%s, err=%v", prefix, err)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-w.tick.C:
		}
	}
}

// Start initialises both ways so both are reachable.
// ok: retrycancel
func (w *RevWatcher) Start(ctx context.Context, prefix string, legacy bool) (int64, error) {
	if legacy {
		return w.initRev(ctx, prefix)
	}
	return w.initRevCtx(ctx, prefix)
}

// PublishWithRetry retries transient Put failures. Its loop has no ctx
// check of its own, which looks suspicious, but store.Sleep returns
// ctx.Err() and IsTransient never matches a context error, so every path
// stops once the context is done.
// ok: retrycancel
func PublishWithRetry(ctx context.Context, c *store.Client, key string, v []byte) error {
	backoff := 50 * time.Millisecond
	for {
		err := c.Put(ctx, key, v)
		if err == nil || !store.IsTransient(err) {
			return err
		}
		if err := store.Sleep(ctx, backoff); err != nil {
			return err
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// DrainRetrying pops items, skipping not-ready ones with continue. The
// continue looks like it could route around cancellation, but the ctx
// check sits at the top of the loop, before anything continue can skip.
// ok: retrycancel
func DrainRetrying(ctx context.Context, c *store.Client, keys []string) (int, error) {
	done := 0
	pending := append([]string(nil), keys...)
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		k := pending[0]
		pending = pending[1:]
		v, err := c.Get(ctx, k)
		if errors.Is(err, store.ErrUnavailable) || (err == nil && len(v) == 0) {
			pending = append(pending, k)
			if err := store.Sleep(ctx, 20*time.Millisecond); err != nil {
				return done, err
			}
			continue
		}
		if err != nil {
			return done, fmt.Errorf("drain %s: %w", k, errors.Join(err, errNotReady))
		}
		done++
	}
	return done, nil
}
