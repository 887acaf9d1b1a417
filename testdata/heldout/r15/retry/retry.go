// Package retry holds retry, poll and reconnect loops, some of which keep
// going after their context is done.
package retry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// ---------------------------------------------------------------------------
// Query frontend retry middleware.

// Request is a query range request.
type Request struct {
	Query      string
	Start, End time.Time
}

// QueryResponse is a query result.
type QueryResponse struct {
	Data []byte
}

// HTTPError is a failed downstream response.
type HTTPError struct {
	Code int
	Msg  string
}

// Error implements error.
// ok: retrycancel
func (e *HTTPError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Msg) }

// Handler handles query requests.
type Handler interface {
	Do(ctx context.Context, r *Request) (*QueryResponse, error)
}

// retryable reports whether a downstream failure is worth another attempt:
// everything except 4xx answers.
// ok: retrycancel
func retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Code/100 != 4
	}
	return true
}

// RetryMiddleware retries failed downstream queries.
type RetryMiddleware struct {
	next       Handler
	maxRetries int
}

// Do retries the query up to maxRetries times. Nothing looks at the request
// context between attempts, so once the query is cancelled every remaining
// attempt is still issued and fails straight away.
// From: cortexproject/cortex#2081
// bug: retrycancel
func (m *RetryMiddleware) Do(ctx context.Context, r *Request) (*QueryResponse, error) {
	var lastErr error
	for tries := 0; tries < m.maxRetries; tries++ {
		resp, err := m.next.Do(ctx, r)
		if err == nil {
			return resp, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// DoNearMiss checks the request context before every attempt.
// ok: retrycancel
func (m *RetryMiddleware) DoNearMiss(ctx context.Context, r *Request) (*QueryResponse, error) {
	var lastErr error
	for tries := 0; tries < m.maxRetries; tries++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		resp, err := m.next.Do(ctx, r)
		if err == nil {
			return resp, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// ---------------------------------------------------------------------------
// Warehouse REST client.

// RestClient posts requests to a warehouse login/query endpoint.
type RestClient struct {
	http         *http.Client
	initialSleep time.Duration
	totalTimeout time.Duration
}

// post sends one attempt under ctx.
// ok: retrycancel
func (c *RestClient) post(ctx context.Context, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.http.Do(req)
}

// discard drains and closes a response body so the connection is reused.
// ok: retrycancel
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// PostWithRetry retries 5xx and transport failures with a growing sleep. The
// sleep is unconditional, so a cancelled query waits out the whole backoff
// before the next (doomed) attempt notices.
// From: snowflakedb/gosnowflake#199
// bug: retrycancel
func (c *RestClient) PostWithRetry(ctx context.Context, url string, body []byte) (*http.Response, error) {
	start := time.Now()
	sleep := c.initialSleep
	for {
		resp, err := c.post(ctx, url, body)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			discard(resp)
			err = fmt.Errorf("warehouse: status %d", resp.StatusCode)
		}
		if time.Since(start) > c.totalTimeout {
			return nil, fmt.Errorf("retry budget exhausted: %w", err)
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, 16*time.Second)
	}
}

// PostWithRetryNearMiss waits on a timer or the context, whichever is first.
// ok: retrycancel
func (c *RestClient) PostWithRetryNearMiss(ctx context.Context, url string, body []byte) (*http.Response, error) {
	start := time.Now()
	sleep := c.initialSleep
	for {
		resp, err := c.post(ctx, url, body)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			discard(resp)
			err = fmt.Errorf("warehouse: status %d", resp.StatusCode)
		}
		if time.Since(start) > c.totalTimeout {
			return nil, fmt.Errorf("retry budget exhausted: %w", err)
		}
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		sleep = min(2*sleep, 16*time.Second)
	}
}

// ---------------------------------------------------------------------------
// Duration-bounded retry helper.

// ForDuration calls fn on every tick until it succeeds or d has elapsed. It
// takes the caller's context only to hand it to fn; the loop itself never
// watches it, so a server shutting down stays in here for the full d.
// From: cockroachdb/cockroach#25091
// bug: retrycancel
func ForDuration[T any](ctx context.Context, d, every time.Duration, fn func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(d)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	var zero T
	var lastErr error
	for time.Now().Before(deadline) {
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		lastErr = err
		<-ticker.C
	}
	return zero, fmt.Errorf("gave up after %s: %w", d, lastErr)
}

// ForDurationNearMiss also stops when the context is done.
// ok: retrycancel
func ForDurationNearMiss[T any](ctx context.Context, d, every time.Duration, fn func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(d)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	var zero T
	var lastErr error
	for time.Now().Before(deadline) {
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		lastErr = err
		select {
		case <-ticker.C:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	return zero, fmt.Errorf("gave up after %s: %w", d, lastErr)
}

// ---------------------------------------------------------------------------
// Video job polling.

// Video is a rendering job.
type Video struct {
	ID         string
	Status     string
	RetryAfter time.Duration
}

// VideoService polls rendering jobs.
type VideoService struct {
	get   func(ctx context.Context, id string) (*Video, error)
	sleep func(time.Duration)
}

// NewVideoService uses time.Sleep between polls unless told otherwise.
// ok: retrycancel
func NewVideoService(get func(ctx context.Context, id string) (*Video, error)) *VideoService {
	return &VideoService{get: get, sleep: time.Sleep}
}

// PollStatus polls until the job finishes. It looks at the context only after
// each sleep has run to completion, so a cancelled poll can hang for the whole
// server-suggested interval.
// From: openai/openai-go#727
// bug: retrycancel
func (s *VideoService) PollStatus(ctx context.Context, id string, interval time.Duration) (*Video, error) {
	for {
		v, err := s.get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("poll video %s: %w", id, err)
		}
		if v.Status == "completed" || v.Status == "failed" {
			return v, nil
		}
		if v.RetryAfter > 0 {
			interval = v.RetryAfter
		}
		s.sleep(interval)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// PollStatusNearMiss waits with a context-aware delay.
// ok: retrycancel
func (s *VideoService) PollStatusNearMiss(ctx context.Context, id string, interval time.Duration) (*Video, error) {
	for {
		v, err := s.get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("poll video %s: %w", id, err)
		}
		if v.Status == "completed" || v.Status == "failed" {
			return v, nil
		}
		if v.RetryAfter > 0 {
			interval = v.RetryAfter
		}
		if err := waitForDelay(ctx, interval); err != nil {
			return nil, err
		}
	}
}

// waitForDelay sleeps for d unless ctx ends first.
// ok: retrycancel
func waitForDelay(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Store transaction retry on SQLITE_BUSY.

// ErrBusy is returned when the database is locked.
var ErrBusy = errors.New("database is locked")

// Store runs transactions with retry on lock contention.
type Store struct {
	runTx func(ctx context.Context, fn func() error) error
	base  time.Duration
}

// WithTx retries fn while the database is busy, sleeping a full-jitter backoff
// between attempts. When the backoff timer and the context are ready at the
// same time, select may pick the timer, and the transaction is re-issued for
// a caller who has already given up.
// From: marmos91/dittofs#2571
// bug: retrycancel
func (s *Store) WithTx(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || !errors.Is(err, ErrBusy) {
			return err
		}
		d := time.Duration(rand.Int64N(int64(s.base<<min(attempt, 10)) + 1))
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// WithTxNearMiss re-checks the context after the timer fires.
// ok: retrycancel
func (s *Store) WithTxNearMiss(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || !errors.Is(err, ErrBusy) {
			return err
		}
		d := time.Duration(rand.Int64N(int64(s.base<<min(attempt, 10)) + 1))
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Retrying HTTP client with an overall timeout.

// Options configures RetryClient.
type Options struct {
	RetryMax int
	Timeout  time.Duration
	WaitMin  time.Duration
}

// RetryClient retries idempotent HTTP requests.
type RetryClient struct {
	http *http.Client
	opts Options
}

// shouldRetry retries transport errors and 5xx / 429 answers.
// ok: retrycancel
func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return true
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// attempt sends req once under ctx.
// ok: retrycancel
func (c *RetryClient) attempt(ctx context.Context, method, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	return c.http.Do(req)
}

// Do retries up to RetryMax times within the overall Timeout. When the
// timeout fires during a backoff, the break leaves only the select, and the
// remaining retries are replayed back to back against a dead context.
// From: projectdiscovery/retryablehttp-go#554
// bug: retrycancel
func (c *RetryClient) Do(ctx context.Context, method, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var lastErr error
	for i := 0; i <= c.opts.RetryMax; i++ {
		resp, err := c.attempt(ctx, method, url)
		if !shouldRetry(resp, err) {
			return resp, nil
		}
		if err == nil {
			discard(resp)
			err = fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
		}
		lastErr = err
		timer := time.NewTimer(c.opts.WaitMin << i)
		select {
		case <-ctx.Done():
			timer.Stop()
			break
		case <-timer.C:
		}
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.opts.RetryMax+1, lastErr)
}

// DoNearMiss returns as soon as the overall timeout ends a backoff.
// ok: retrycancel
func (c *RetryClient) DoNearMiss(ctx context.Context, method, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var lastErr error
	for i := 0; i <= c.opts.RetryMax; i++ {
		resp, err := c.attempt(ctx, method, url)
		if !shouldRetry(resp, err) {
			return resp, nil
		}
		if err == nil {
			discard(resp)
			err = fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
		}
		lastErr = err
		timer := time.NewTimer(c.opts.WaitMin << i)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, errors.Join(ctx.Err(), lastErr)
		case <-timer.C:
		}
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.opts.RetryMax+1, lastErr)
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// ParseWithFallback tries a list of layouts in turn. It is a loop that retries
// after failure, but there is no I/O and no context to watch.
// ok: retrycancel
func ParseWithFallback(s string, layouts []string) (time.Time, error) {
	var lastErr error
	for _, layout := range layouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return t, nil
		}
		lastErr = err
	}
	return time.Time{}, fmt.Errorf("no layout matched %q: %w", s, lastErr)
}

// Heartbeat sends a heartbeat on every tick until ctx ends; a failed send is
// not fatal and the loop carries on, but only while ctx is live.
// ok: retrycancel
func Heartbeat(ctx context.Context, every time.Duration, send func(context.Context) error, onErr func(error)) error {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
		if err := send(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			onErr(err)
		}
	}
}

// RedialUntil reconnects with capped backoff until dial succeeds or ctx ends.
// ok: retrycancel
func RedialUntil[C io.Closer](ctx context.Context, dial func(context.Context) (C, error)) (C, error) {
	var zero C
	backoff := 50 * time.Millisecond
	for {
		c, dialErr := dial(ctx)
		if dialErr == nil {
			return c, nil
		}
		if err := waitForDelay(ctx, backoff); err != nil {
			return zero, errors.Join(err, fmt.Errorf("last dial error: %w", dialErr))
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
