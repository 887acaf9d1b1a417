package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"heldoutr5b/internal/store"
)

// Executor waits for a query's tasks to finish.
type Executor struct {
	log *log.Logger
}

// WaitTasks waits for every task's finished channel. On <-ctx.Done() it
// returns a brand-new "context done" error instead of ctx.Err(), so the
// query layer cannot tell a user cancel from the query timeout and both
// are reported as an internal executor failure.
// From: influxdata/flux#1228
// bug: foldedtimeout
func (e *Executor) WaitTasks(ctx context.Context, finished []<-chan struct{}) error {
	for _, done := range finished {
		select {
		case <-done:
		case <-ctx.Done():
			return errors.New("context done")
		}
	}
	return nil
}

// WaitTasksCtxErr returns ctx.Err() from the same select, as the fix did.
// ok: foldedtimeout
func (e *Executor) WaitTasksCtxErr(ctx context.Context, finished []<-chan struct{}) error {
	for _, done := range finished {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// ErrCtxDone is the semaphore's own "gave up waiting" error.
var ErrCtxDone = errors.New("semaphore: context done")

// Semaphore bounds concurrent uploads.
type Semaphore struct {
	slots chan struct{}
}

// NewSemaphore returns a semaphore with n slots.
// ok: foldedtimeout
func NewSemaphore(n int) *Semaphore { return &Semaphore{slots: make(chan struct{}, n)} }

// Acquire takes a slot or gives up when ctx is done, returning the
// package's own sentinel. Callers checking errors.Is(err,
// context.DeadlineExceeded) to turn a slow queue into a 503 never match.
// From: marusama/semaphore#1
// bug: foldedtimeout
func (s *Semaphore) Acquire(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ErrCtxDone
	}
}

// AcquireCtx gives up the same way but returns the standard ctx.Err().
// ok: foldedtimeout
func (s *Semaphore) AcquireCtx(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release frees a slot taken by Acquire.
// ok: foldedtimeout
func (s *Semaphore) Release() { <-s.slots }

// ErrWaitTimeout is the poller's timeout error.
var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// PollUntil checks cond every interval until it holds. Whatever ended the
// context, it reports ErrWaitTimeout, so a controller being shut down logs
// "timed out" and a caller cannot distinguish cancel from deadline.
// From: kubernetes/kubernetes#107826
// bug: foldedtimeout
func PollUntil(ctx context.Context, interval time.Duration, cond func(context.Context) (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrWaitTimeout
		case <-t.C:
		}
	}
}

// PollUntilContext returns the context's own error, as the
// PollUntilContextCancel replacement does.
// ok: foldedtimeout
func PollUntilContext(ctx context.Context, interval time.Duration, cond func(context.Context) (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ErrHandshakeTimeout is returned when the peer never says hello.
var ErrHandshakeTimeout = errors.New("handshake timed out")

// Handshaker waits for a peer greeting.
type Handshaker struct {
	timeout time.Duration
}

// Await returns a timeout sentinel, but only from its own timer; the
// ctx.Done branch returns ctx.Err(), so nothing is folded.
// ok: foldedtimeout
func (h *Handshaker) Await(ctx context.Context, hello <-chan struct{}) error {
	t := time.NewTimer(h.timeout)
	defer t.Stop()
	select {
	case <-hello:
		return nil
	case <-t.C:
		return ErrHandshakeTimeout
	case <-ctx.Done():
		return ctx.Err()
	}
}

// QueryHandler serves stored query results under a per-request budget.
type QueryHandler struct {
	c       *store.Client
	log     *log.Logger
	timeout time.Duration
}

// ServeHTTP treats any done context as the query budget running out. When
// the client disconnects the request context is canceled, and the handler
// logs and answers "query timed out" with 504, inflating timeout alerts.
// From: kyma-incubator/compass#1594
// bug: foldedtimeout
func (h *QueryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	v, err := h.c.Get(ctx, "query/"+r.URL.Query().Get("id"))
	if err != nil {
		if ctx.Err() != nil {
			h.log.Printf("query timed out after %s", h.timeout)
			http.Error(w, "query timed out", http.StatusGatewayTimeout)
			return
		}
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(v)
}

// QueryHandlerStrict distinguishes the two context errors.
type QueryHandlerStrict struct {
	c       *store.Client
	log     *log.Logger
	timeout time.Duration
}

// ServeHTTP reports 504 only for DeadlineExceeded and logs a client
// disconnect (Canceled) as such.
// ok: foldedtimeout
func (h *QueryHandlerStrict) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	v, err := h.c.Get(ctx, "query/"+r.URL.Query().Get("id"))
	if err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			h.log.Printf("query timed out after %s", h.timeout)
			http.Error(w, "query timed out", http.StatusGatewayTimeout)
		case errors.Is(err, context.Canceled):
			h.log.Printf("client went away before the query finished")
			http.Error(w, "client closed request", 499)
		default:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	_, _ = w.Write(v)
}

// Outbound is an RPC transport over the store.
type Outbound struct {
	c *store.Client
}

// ErrRPCTimeout is the transport's timeout error.
var ErrRPCTimeout = errors.New("yarpc: request timed out")

// Call maps err == ctx.Err() to a timeout. ctx.Err() is Canceled just as
// often as DeadlineExceeded, so a caller canceling the call receives a
// "timed out" error.
// From: yarpc/yarpc-go#268
// bug: foldedtimeout
func (o *Outbound) Call(ctx context.Context, procedure string) ([]byte, error) {
	v, err := o.c.Get(ctx, "proc/"+procedure)
	if err != nil {
		if err == ctx.Err() {
			return nil, fmt.Errorf("%s: %w", procedure, ErrRPCTimeout)
		}
		return nil, fmt.Errorf("%s: %w", procedure, err)
	}
	return v, nil
}

// CallDeadlineOnly maps only DeadlineExceeded to the timeout error, and
// keeps the deadline in the chain too.
// ok: foldedtimeout
func (o *Outbound) CallDeadlineOnly(ctx context.Context, procedure string) ([]byte, error) {
	v, err := o.c.Get(ctx, "proc/"+procedure)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w: %w", procedure, ErrRPCTimeout, err)
		}
		return nil, fmt.Errorf("%s: %w", procedure, err)
	}
	return v, nil
}

// CommitLog answers "last commit touching path" lookups.
type CommitLog struct {
	c      *store.Client
	budget time.Duration
}

// lookup reads one path's last commit, wrapping failures with %w.
// ok: foldedtimeout
func (l *CommitLog) lookup(ctx context.Context, path string) (string, error) {
	v, err := l.c.Get(ctx, "lastcommit/"+path)
	if err != nil {
		return "", fmt.Errorf("walk log for %s: %w", path, err)
	}
	return string(v), nil
}

// CommitsInfo fills in as many paths as its own budget allows; running out
// of budget (with the caller still waiting) is meant to render a partial
// listing. It tests err == context.DeadlineExceeded, but lookup wraps the
// error, so the check never matches and the directory page fails with 500.
// From: go-gitea/gitea#20346
// bug: foldedtimeout
func (l *CommitLog) CommitsInfo(ctx context.Context, paths []string) (map[string]string, bool, error) {
	wctx, cancel := context.WithTimeout(ctx, l.budget)
	defer cancel()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		c, err := l.lookup(wctx, p)
		if err != nil {
			if err == context.DeadlineExceeded && ctx.Err() == nil {
				return out, true, nil
			}
			return nil, false, err
		}
		out[p] = c
	}
	return out, false, nil
}

// CommitsInfoIs uses errors.Is so the wrapped budget deadline is
// recognised. The parent ctx is checked, so a caller's own cancel or
// deadline is still returned.
// ok: foldedtimeout
func (l *CommitLog) CommitsInfoIs(ctx context.Context, paths []string) (map[string]string, bool, error) {
	wctx, cancel := context.WithTimeout(ctx, l.budget)
	defer cancel()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		c, err := l.lookup(wctx, p)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				return out, true, nil
			}
			return nil, false, err
		}
		out[p] = c
	}
	return out, false, nil
}

// StepResult is the outcome of one CI step; Err wraps the step's failure.
type StepResult struct {
	Name string
	Err  error
}

// FailedSteps lists steps to report as junit failures, excluding steps
// that were merely canceled. The != comparison misses a Canceled wrapped
// in the step's error, so every aborted job shows all its steps failed.
// From: openshift/ci-tools#1789
// bug: foldedtimeout
func FailedSteps(results []StepResult) []string {
	var failed []string
	for _, r := range results {
		if r.Err != nil && r.Err != context.Canceled {
			failed = append(failed, r.Name)
		}
	}
	return failed
}

// FailedStepsIs uses errors.Is, as the review asked.
// ok: foldedtimeout
func FailedStepsIs(results []StepResult) []string {
	var failed []string
	for _, r := range results {
		if r.Err != nil && !errors.Is(r.Err, context.Canceled) {
			failed = append(failed, r.Name)
		}
	}
	return failed
}

// Ingester runs one ingest pass and counts real failures.
type Ingester struct {
	c        *store.Client
	log      *log.Logger
	failures atomic.Int64
}

// ingest copies the inbox to the archive.
// ok: foldedtimeout
func (in *Ingester) ingest(ctx context.Context) error {
	for r, err := range in.c.Scan(ctx, "inbox/") {
		if err != nil {
			return err
		}
		if err := in.c.Put(ctx, "archive/"+r.Key, r.Value); err != nil {
			return err
		}
	}
	return nil
}

// RunOnce uses errors.As with &context.Canceled as the target. With an
// *error target As matches any error and assigns it to the package-level
// context.Canceled, so real failures are never counted and every later
// errors.Is(x, context.Canceled) in the process compares against the
// wrong value.
// From: timescale/promscale#1620
// bug: foldedtimeout
func (in *Ingester) RunOnce(ctx context.Context) error {
	err := in.ingest(ctx)
	if err != nil && !errors.As(err, &context.Canceled) {
		in.failures.Add(1)
		in.log.Printf("ingest failed: %v", err)
	}
	return err
}

// RunOnceIs compares against the sentinel value with errors.Is.
// ok: foldedtimeout
func (in *Ingester) RunOnceIs(ctx context.Context) error {
	err := in.ingest(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		in.failures.Add(1)
		in.log.Printf("ingest failed: %v", err)
	}
	return err
}

// Limiter hands out one token per interval.
type Limiter struct {
	mu       sync.Mutex
	next     time.Time
	interval time.Duration
}

// NewLimiter returns a limiter allowing one event per interval.
// ok: foldedtimeout
func NewLimiter(interval time.Duration) *Limiter { return &Limiter{interval: interval} }

// reserve returns how long the caller must wait, claiming the slot only
// when fits reports true for that delay.
// ok: foldedtimeout
func (l *Limiter) reserve(fits func(time.Duration) bool) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	d := at.Sub(now)
	if !fits(d) {
		return d, false
	}
	l.next = at.Add(l.interval)
	return d, true
}

// Wait refuses up front when the token would arrive after ctx's deadline,
// with an error that does not wrap context.DeadlineExceeded, so callers
// mapping deadlines to 504 with errors.Is return 500 instead.
// From: golang/go#54541
// bug: foldedtimeout
func (l *Limiter) Wait(ctx context.Context) error {
	dl, hasDL := ctx.Deadline()
	d, ok := l.reserve(func(d time.Duration) bool { return !hasDL || time.Until(dl) >= d })
	if !ok {
		return fmt.Errorf("rate: Wait would exceed context deadline (need %s)", d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitIs refuses the same way but wraps context.DeadlineExceeded, keeping
// the message and adding the identity, as the accepted proposal does.
// ok: foldedtimeout
func (l *Limiter) WaitIs(ctx context.Context) error {
	dl, hasDL := ctx.Deadline()
	d, ok := l.reserve(func(d time.Duration) bool { return !hasDL || time.Until(dl) >= d })
	if !ok {
		return fmt.Errorf("rate: Wait would exceed context deadline (need %s): %w", d, context.DeadlineExceeded)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrDeadlineTooSoon is the pool's "not worth trying" error. It wraps
// context.DeadlineExceeded, so returning it keeps the identity.
var ErrDeadlineTooSoon = fmt.Errorf("pool: deadline leaves no time for a round trip: %w", context.DeadlineExceeded)

// Pool checks out connections under a minimum round-trip budget.
type Pool struct {
	minRTT time.Duration
	conns  chan int
}

// Checkout returns a package sentinel, which looks folded, but the
// sentinel itself wraps context.DeadlineExceeded and the Done branch
// returns ctx.Err().
// ok: foldedtimeout
func (p *Pool) Checkout(ctx context.Context) (int, error) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < p.minRTT {
		return 0, ErrDeadlineTooSoon
	}
	select {
	case id := <-p.conns:
		return id, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
