// Package retry holds retry/poll/reconnect loops that keep going after
// the caller's context is done, next to loops that stop.
package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"heldoutr5b/internal/store"
)

// APIClient talks to a rate-limited JSON API.
type APIClient struct {
	hc       *http.Client
	base     string
	maxTries int
}

// NewAPIClient returns a client for base.
// ok: retrycancel
func NewAPIClient(hc *http.Client, base string) *APIClient {
	return &APIClient{hc: hc, base: base, maxTries: 5}
}

// retryAfter parses a Retry-After header in seconds.
// ok: retrycancel
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || n <= 0 {
		return time.Second
	}
	return time.Duration(n) * time.Second
}

// doOnce sends one GET; it reports whether the caller should retry after
// the returned delay.
// ok: retrycancel
func (a *APIClient) doOnce(ctx context.Context, path string, out any) (bool, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
	if err != nil {
		return false, 0, err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		_, _ = io.Copy(io.Discard, resp.Body)
		return true, retryAfter(resp.Header), fmt.Errorf("%s: rate limited", path)
	}
	if resp.StatusCode != http.StatusOK {
		return false, 0, fmt.Errorf("%s: %s", path, resp.Status)
	}
	return false, 0, json.NewDecoder(resp.Body).Decode(out)
}

// Get retries 429 responses after the server's Retry-After. The wait is a
// time.Sleep, so a canceled request sits out the full Retry-After (often a
// minute) before the next attempt notices the context.
// From: zmb3/spotify#212
// bug: retrycancel
func (a *APIClient) Get(ctx context.Context, path string, out any) error {
	var err error
	for range a.maxTries {
		var again bool
		var wait time.Duration
		again, wait, err = a.doOnce(ctx, path, out)
		if !again {
			return err
		}
		time.Sleep(wait)
	}
	return err
}

// GetCtx waits in a select on a timer and ctx.Done, returning at once when
// the request is canceled.
// ok: retrycancel
func (a *APIClient) GetCtx(ctx context.Context, path string, out any) error {
	var err error
	for range a.maxTries {
		var again bool
		var wait time.Duration
		again, wait, err = a.doOnce(ctx, path, out)
		if !again {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return err
}

// Tailer follows a log file that may be rotated away.
type Tailer struct {
	log      *log.Logger
	interval time.Duration
	emit     func([]byte)
}

// Tail re-reads path every tick. The only ctx check is the select at the
// bottom of the loop; when the file is missing the error branch waits on
// the ticker and continues past it, so once the file is rotated away a
// canceled Tail keeps polling forever.
// From: hashicorp/boundary#2285
// bug: retrycancel
func (t *Tailer) Tail(ctx context.Context, path string) error {
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	offset := 0
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			t.log.Printf("tail %s: %v", path, err)
			<-tick.C
			continue
		}
		if len(data) < offset {
			offset = 0
		}
		if len(data) > offset {
			t.emit(data[offset:])
			offset = len(data)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// TailChecked moves the wait-or-stop select to the top of the loop, so the
// continue in the error branch can no longer skip it.
// ok: retrycancel
func (t *Tailer) TailChecked(ctx context.Context, path string) error {
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	offset := 0
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.log.Printf("tail %s: %v", path, err)
			continue
		}
		if len(data) < offset {
			offset = 0
		}
		if len(data) > offset {
			t.emit(data[offset:])
			offset = len(data)
		}
	}
}

// Subscriber keeps a gRPC-like stream subscription open.
type Subscriber struct {
	log     *log.Logger
	backoff time.Duration
	timer   *time.Timer
	open    func(context.Context) (*Session, error)
}

// Session is an open connection.
type Session struct {
	done chan struct{}
}

// Done is closed when the session ends.
// ok: retrycancel
func (s *Session) Done() <-chan struct{} { return s.done }

// Resubscribe reopens the subscription whenever it fails. It checks the
// context at the top of each round, but the retry wait is a bare receive
// from the retry timer (30s in production), and the session wait ignores
// ctx too, so cancellation is only noticed after the full interval.
// From: openconfig/gnmic#351
// bug: retrycancel
func (s *Subscriber) Resubscribe(ctx context.Context) error {
	if s.timer == nil {
		s.timer = time.NewTimer(0)
	}
	defer s.timer.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		<-s.timer.C
		sess, err := s.open(ctx)
		if err != nil {
			s.log.Printf("subscribe: %v; retrying in %s", err, s.backoff)
			s.timer.Reset(s.backoff)
			continue
		}
		<-sess.Done()
		s.timer.Reset(0)
	}
}

// ResubscribeCtx waits on the timer and ctx.Done together.
// ok: retrycancel
func (s *Subscriber) ResubscribeCtx(ctx context.Context) error {
	if s.timer == nil {
		s.timer = time.NewTimer(0)
	}
	defer s.timer.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case <-s.timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		sess, err := s.open(ctx)
		if err != nil {
			s.log.Printf("subscribe: %v; retrying in %s", err, s.backoff)
			s.timer.Reset(s.backoff)
			continue
		}
		select {
		case <-sess.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
		s.timer.Reset(0)
	}
}

// connect opens a session, retrying by recursion after a fixed backoff.
// Nothing in the recursion looks at ctx: after cancellation every open
// fails at once and connect keeps sleeping and recursing, growing the
// stack until the process is killed.
// From: slok/goresilience#31
// bug: retrycancel
func (s *Subscriber) connect(ctx context.Context, attempt int) (*Session, error) {
	sess, err := s.open(ctx)
	if err == nil {
		return sess, nil
	}
	s.log.Printf("connect attempt %d: %v", attempt, err)
	time.Sleep(s.backoff)
	return s.connect(ctx, attempt+1)
}

// connectCtx recurses the same way, but waits with store.Sleep and returns
// its error, so a done context ends the recursion.
// ok: retrycancel
func (s *Subscriber) connectCtx(ctx context.Context, attempt int) (*Session, error) {
	sess, err := s.open(ctx)
	if err == nil {
		return sess, nil
	}
	s.log.Printf("connect attempt %d: %v", attempt, err)
	if err := store.Sleep(ctx, s.backoff); err != nil {
		return nil, err
	}
	return s.connectCtx(ctx, attempt+1)
}

// Connect is the exported entry point for connectCtx.
// ok: retrycancel
func (s *Subscriber) Connect(ctx context.Context) (*Session, error) { return s.connectCtx(ctx, 1) }

// ConnectLegacy is the exported entry point for connect.
// ok: retrycancel
func (s *Subscriber) ConnectLegacy(ctx context.Context) (*Session, error) { return s.connect(ctx, 1) }

// WaitForSocket polls a unix socket until the daemon creates it. It has no
// context at all (it backs a command-line flag with its own attempt cap),
// so the sleep and the context-less dial cancel nothing.
// ok: retrycancel
func WaitForSocket(path string, attempts int, every time.Duration) error {
	var err error
	for range attempts {
		var c net.Conn
		c, err = net.Dial("unix", path)
		if err == nil {
			return c.Close()
		}
		time.Sleep(every)
	}
	return fmt.Errorf("socket %s never appeared: %w", path, err)
}

// errNotReady marks a poll that should simply be repeated.
var errNotReady = errors.New("not ready")
