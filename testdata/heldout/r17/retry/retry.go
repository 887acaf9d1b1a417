// Package retry collects the retrying parts of a search client and of a
// developer tool: a multi-host transport, a task-queue query forwarder, a
// tunnel listener, a pipeline waiter, a reconnecting websocket and a generic
// retry helper.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// sleepCtx waits for d or until ctx ends, whichever comes first.
// ok: retrycancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// isContextErr reports whether err comes from a finished context.
// ok: retrycancel
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Host is one search endpoint together with its health.
type Host struct {
	URL     string
	mu      sync.Mutex
	down    bool
	retryAt time.Time
}

// markDown takes h out of rotation for a while.
// ok: retrycancel
func (h *Host) markDown(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down = true
	h.retryAt = now.Add(5 * time.Minute)
}

// usable reports whether h may be tried now.
// ok: retrycancel
func (h *Host) usable(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down && now.Before(h.retryAt) {
		return false
	}
	h.down = false
	return true
}

// Transport sends search requests to the first host that answers.
type Transport struct {
	hosts  []*Host
	client *http.Client
	now    func() time.Time
}

// NewTransport returns a transport over hosts.
// ok: retrycancel
func NewTransport(client *http.Client, urls ...string) *Transport {
	t := &Transport{client: client, now: time.Now}
	for _, u := range urls {
		t.hosts = append(t.hosts, &Host{URL: u})
	}
	return t
}

// do sends one request to h.
// ok: retrycancel
func (t *Transport) do(ctx context.Context, h *Host, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("%s: status %d", h.URL, resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}

// Request tries every usable host in order and returns the first answer; a
// host that fails is taken out of rotation.
// From: algolia/algoliasearch-client-go#605
// bug: retrycancel
func (t *Transport) Request(ctx context.Context, path string) ([]byte, error) {
	var errs []error
	for _, h := range t.hosts {
		if !h.usable(t.now()) {
			continue
		}
		body, err := t.do(ctx, h, path)
		if err == nil {
			return body, nil
		}
		h.markDown(t.now())
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("all hosts failed: %w", errors.Join(errs...))
}

// RequestNearMiss tries every usable host in order and returns the first
// answer; a host that fails is taken out of rotation.
// ok: retrycancel
func (t *Transport) RequestNearMiss(ctx context.Context, path string) ([]byte, error) {
	var errs []error
	for _, h := range t.hosts {
		if !h.usable(t.now()) {
			continue
		}
		body, err := t.do(ctx, h, path)
		if err == nil {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		h.markDown(t.now())
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("all hosts failed: %w", errors.Join(errs...))
}

// errNoRecentPoller is returned when a query cannot be matched before the
// caller's deadline and no worker has polled recently.
var errNoRecentPoller = errors.New("no poller seen for task queue recently")

// errForwarderSlowDown asks the caller to wait before forwarding again.
var errForwarderSlowDown = errors.New("forwarder: slow down")

// QueryTask is a workflow query waiting for a worker.
type QueryTask struct {
	ID      string
	Payload []byte
}

// Matcher hands queries to pollers of one task-queue partition, forwarding
// to the parent partition when a forwarding slot is free.
type Matcher struct {
	queryPollers chan chan QueryTask
	fwdSlots     chan struct{}
	forward      func(ctx context.Context, t QueryTask) ([]byte, error)
	lastPoll     func() time.Time
	budget       time.Duration
}

// NewMatcher returns a matcher that forwards with fwd, at most slots
// forwards at a time.
// ok: retrycancel
func NewMatcher(slots int, fwd func(context.Context, QueryTask) ([]byte, error), lastPoll func() time.Time) *Matcher {
	m := &Matcher{
		queryPollers: make(chan chan QueryTask),
		fwdSlots:     make(chan struct{}, slots),
		forward:      fwd,
		lastPoll:     lastPoll,
		budget:       time.Second,
	}
	for i := 0; i < slots; i++ {
		m.fwdSlots <- struct{}{}
	}
	return m
}

// recentPoller reports whether a worker polled within the last minute.
// ok: retrycancel
func (m *Matcher) recentPoller() bool {
	return time.Since(m.lastPoll()) < time.Minute
}

// forwardOnce forwards t while holding a forwarding slot.
// ok: retrycancel
func (m *Matcher) forwardOnce(ctx context.Context, t QueryTask) ([]byte, error) {
	defer func() { m.fwdSlots <- struct{}{} }()
	return m.forward(ctx, t)
}

// OfferQuery waits for a local poller or a forwarding slot; shortly before
// the caller's deadline it reports when no poller has been around.
// From: temporalio/temporal#6519
// bug: retrycancel
func (m *Matcher) OfferQuery(ctx context.Context, t QueryTask) ([]byte, error) {
	noPollerCtx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		noPollerCtx, cancel = context.WithDeadline(ctx, deadline.Add(-m.budget))
		defer cancel()
	}
	for {
		select {
		case p := <-m.queryPollers:
			p <- t
			return nil, nil
		case <-noPollerCtx.Done():
			if !m.recentPoller() {
				return nil, errNoRecentPoller
			}
		case <-m.fwdSlots:
			resp, err := m.forwardOnce(ctx, t)
			if errors.Is(err, errForwarderSlowDown) {
				if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
					return nil, err
				}
				continue
			}
			return resp, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// OfferQueryNearMiss waits for a local poller or a forwarding slot; shortly
// before the caller's deadline it reports when no poller has been around.
// ok: retrycancel
func (m *Matcher) OfferQueryNearMiss(ctx context.Context, t QueryTask) ([]byte, error) {
	var noPoller <-chan time.Time
	if deadline, ok := ctx.Deadline(); ok {
		timer := time.NewTimer(time.Until(deadline.Add(-m.budget)))
		defer timer.Stop()
		noPoller = timer.C
	}
	for {
		select {
		case p := <-m.queryPollers:
			p <- t
			return nil, nil
		case <-noPoller:
			if !m.recentPoller() {
				return nil, errNoRecentPoller
			}
			noPoller = nil
		case <-m.fwdSlots:
			resp, err := m.forwardOnce(ctx, t)
			if errors.Is(err, errForwarderSlowDown) {
				if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
					return nil, err
				}
				continue
			}
			return resp, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Listener keeps a tunnel registered with a broker and reconnects when the
// connection drops.
type Listener struct {
	broker  string
	dial    func(ctx context.Context, broker string) (net.Conn, error)
	serve   func(net.Conn) error
	backoff time.Duration
	done    chan struct{}
}

// NewListener returns a listener for broker.
// ok: retrycancel
func NewListener(broker string, dial func(context.Context, string) (net.Conn, error), serve func(net.Conn) error) *Listener {
	return &Listener{broker: broker, dial: dial, serve: serve, backoff: time.Second, done: make(chan struct{})}
}

// Listen registers with the broker and keeps the registration alive in the
// background; Done is closed when the background loop exits.
// From: coder/coder-v1-cli#349
// bug: retrycancel
func (l *Listener) Listen(ctx context.Context) error {
	conn, err := l.dial(ctx, l.broker)
	if err != nil {
		return fmt.Errorf("dial broker: %w", err)
	}
	go func() {
		defer close(l.done)
		for {
			if err := l.serve(conn); err != nil {
				log.Printf("tunnel: connection closed: %v", err)
			}
			for {
				select {
				case <-time.After(l.backoff):
					conn, err = l.dial(ctx, l.broker)
				case <-ctx.Done():
					err = ctx.Err()
				}
				if err == nil {
					break
				}
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					log.Printf("tunnel: stopping redial: %v", err)
				}
			}
		}
	}()
	return nil
}

// ListenNearMiss registers with the broker and keeps the registration alive
// in the background; Done is closed when the background loop exits.
// ok: retrycancel
func (l *Listener) ListenNearMiss(ctx context.Context) error {
	conn, err := l.dial(ctx, l.broker)
	if err != nil {
		return fmt.Errorf("dial broker: %w", err)
	}
	go func() {
		defer close(l.done)
		for {
			if err := l.serve(conn); err != nil {
				log.Printf("tunnel: connection closed: %v", err)
			}
			for {
				select {
				case <-time.After(l.backoff):
					conn, err = l.dial(ctx, l.broker)
				case <-ctx.Done():
					err = ctx.Err()
				}
				if err == nil {
					break
				}
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					log.Printf("tunnel: stopping redial: %v", err)
					return
				}
			}
		}
	}()
	return nil
}

// Done is closed once the background loop of Listen has exited.
// ok: retrycancel
func (l *Listener) Done() <-chan struct{} { return l.done }

// WaitOptions configures WaitFor.
type WaitOptions[T any] struct {
	Interval time.Duration
	Timeout  time.Duration
	Poll     func(ctx context.Context) (T, error)
	Done     func(T) bool
}

// WaitResult describes how a wait ended.
type WaitResult[T any] struct {
	Item     T
	Polls    int
	TimedOut bool
	LastErr  error
}

// WaitFor polls until Done accepts an item or the timeout passes. Poll
// errors are treated as transient and polling continues.
// From: jmrplens/gitlab-mcp-server#127
// bug: retrycancel
func WaitFor[T any](ctx context.Context, opts WaitOptions[T]) (WaitResult[T], error) {
	var res WaitResult[T]
	deadline := time.Now().Add(opts.Timeout)
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	for {
		if time.Until(deadline) <= 0 {
			res.TimedOut = true
			return res, nil
		}
		res.Polls++
		pollCtx, cancel := context.WithDeadline(ctx, deadline)
		item, err := opts.Poll(pollCtx)
		cancel()
		if err != nil {
			res.LastErr = err
		} else {
			res.Item = item
			if opts.Done(item) {
				return res, nil
			}
		}
		<-tick.C
	}
}

// WaitForNearMiss polls until Done accepts an item or the timeout passes.
// Poll errors are treated as transient and polling continues.
// ok: retrycancel
func WaitForNearMiss[T any](ctx context.Context, opts WaitOptions[T]) (WaitResult[T], error) {
	var res WaitResult[T]
	deadline := time.Now().Add(opts.Timeout)
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if time.Until(deadline) <= 0 {
			res.TimedOut = true
			return res, nil
		}
		res.Polls++
		pollCtx, cancel := context.WithDeadline(ctx, deadline)
		item, err := opts.Poll(pollCtx)
		cancel()
		if err != nil {
			res.LastErr = err
		} else {
			res.Item = item
			if opts.Done(item) {
				return res, nil
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
}

// Dialer opens websocket connections.
type Dialer interface {
	DialContext(ctx context.Context, url string) (io.ReadWriteCloser, error)
}

// RecConn is a websocket connection that reconnects on its own.
type RecConn struct {
	url    string
	dialer Dialer
	mu     sync.Mutex
	conn   io.ReadWriteCloser
	closed chan struct{}
	wg     sync.WaitGroup
	min    time.Duration
	max    time.Duration
}

// NewRecConn returns an unconnected connection to url.
// ok: retrycancel
func NewRecConn(url string, d Dialer) *RecConn {
	return &RecConn{url: url, dialer: d, closed: make(chan struct{}), min: 100 * time.Millisecond, max: 10 * time.Second}
}

// setConn installs c as the live connection.
// ok: retrycancel
func (rc *RecConn) setConn(c io.ReadWriteCloser) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.conn = c
}

// connectLoop dials until a connection is established, doubling the wait
// after each failed attempt.
// From: recws-org/recws#45
// bug: retrycancel
func (rc *RecConn) connectLoop(ctx context.Context) {
	defer rc.wg.Done()
	wait := rc.min
	for {
		select {
		case <-rc.closed:
			return
		default:
		}
		c, err := rc.dialer.DialContext(ctx, rc.url)
		if err == nil {
			rc.setConn(c)
			return
		}
		log.Printf("recws: dial %s: %v, retrying in %v", rc.url, err, wait)
		select {
		case <-time.After(wait):
		case <-rc.closed:
			return
		}
		wait = min(wait*2, rc.max)
	}
}

// connectLoopNearMiss dials until a connection is established, doubling the
// wait after each failed attempt.
// ok: retrycancel
func (rc *RecConn) connectLoopNearMiss(ctx context.Context) {
	defer rc.wg.Done()
	wait := rc.min
	for {
		select {
		case <-rc.closed:
			return
		case <-ctx.Done():
			return
		default:
		}
		c, err := rc.dialer.DialContext(ctx, rc.url)
		if err == nil {
			rc.setConn(c)
			return
		}
		log.Printf("recws: dial %s: %v, retrying in %v", rc.url, err, wait)
		select {
		case <-time.After(wait):
		case <-rc.closed:
			return
		case <-ctx.Done():
			return
		}
		wait = min(wait*2, rc.max)
	}
}

// Dial starts connecting in the background.
// ok: retrycancel
func (rc *RecConn) Dial(ctx context.Context) {
	rc.wg.Add(1)
	go rc.connectLoopNearMiss(ctx)
}

// Close stops reconnecting, waits for the background dialer and closes the
// live connection.
// ok: retrycancel
func (rc *RecConn) Close() error {
	close(rc.closed)
	rc.wg.Wait()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.conn != nil {
		return rc.conn.Close()
	}
	return nil
}

// Retry runs RetryFunc until it succeeds or MaxRetries attempts were made.
type Retry struct {
	MaxRetries int
	Delay      time.Duration
	RetryFunc  func(ctx context.Context) error
	Errors     []error
}

// NewRetry returns a helper that calls fn up to max times, delay apart.
// ok: retrycancel
func NewRetry(max int, delay time.Duration, fn func(context.Context) error) *Retry {
	return &Retry{MaxRetries: max, Delay: delay, RetryFunc: fn}
}

// ExecWithRetries calls RetryFunc until it succeeds, recording each failure.
// From: newrelic/newrelic-cli#1022
// bug: retrycancel
func (r *Retry) ExecWithRetries(ctx context.Context) error {
	for i := 0; i < r.MaxRetries; i++ {
		err := r.RetryFunc(ctx)
		if err == nil {
			return nil
		}
		r.Errors = append(r.Errors, err)
		timer := time.NewTimer(r.Delay)
		<-timer.C
	}
	return fmt.Errorf("giving up after %d attempts: %w", r.MaxRetries, errors.Join(r.Errors...))
}

// ExecWithRetriesNearMiss calls RetryFunc until it succeeds, recording each
// failure.
// ok: retrycancel
func (r *Retry) ExecWithRetriesNearMiss(ctx context.Context) error {
	for i := 0; i < r.MaxRetries; i++ {
		err := r.RetryFunc(ctx)
		if err == nil {
			return nil
		}
		r.Errors = append(r.Errors, err)
		if err := sleepCtx(ctx, r.Delay); err != nil {
			r.Errors = append(r.Errors, err)
			return err
		}
	}
	return fmt.Errorf("giving up after %d attempts: %w", r.MaxRetries, errors.Join(r.Errors...))
}

// PollJob asks status for the state of a job until it reports completion,
// backing off between attempts.
// ok: retrycancel
func PollJob(ctx context.Context, status func(context.Context) (bool, error)) error {
	wait := 200 * time.Millisecond
	for {
		done, err := status(ctx)
		switch {
		case err == nil && done:
			return nil
		case err != nil && isContextErr(err):
			return err
		case err != nil:
			log.Printf("poll: transient error: %v", err)
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// RefreshLoop calls refresh on every tick until ctx ends; refresh failures
// are logged and the loop carries on.
// ok: retrycancel
func RefreshLoop(ctx context.Context, every time.Duration, refresh func(context.Context) error) error {
	t := time.NewTicker(every)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
			if err := refresh(ctx); err != nil {
				log.Printf("refresh: %v", err)
			}
		}
	}
	return ctx.Err()
}

// ReleaseLease tells the coordinator that the lease is no longer held. It
// runs during shutdown, so it keeps the caller's values but not its
// cancellation, and bounds itself with a short timeout and a fixed number
// of attempts.
// ok: retrycancel
func ReleaseLease(ctx context.Context, release func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = release(rctx); err == nil {
			return nil
		}
		if serr := sleepCtx(rctx, 200*time.Millisecond); serr != nil {
			return errors.Join(err, serr)
		}
	}
	return err
}
