// Package retry holds retry, poll, reconnect and backoff loops that keep
// going after their context is done.
package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Logger is the minimal logging surface the cases use.
type Logger interface {
	Printf(format string, args ...any)
}

// ---------------------------------------------------------------------------
// zmb3/spotify#212: honouring Retry-After on 429 responses.

// Doer sends HTTP requests.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// APIClient talks to a rate-limited web API.
type APIClient struct {
	http      Doer
	autoRetry bool
}

// retryAfter reads the Retry-After header, defaulting to one second.
// ok: retrycancel
func retryAfter(resp *http.Response) time.Duration {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return time.Second
}

// decode reads a JSON body or turns a non-2xx status into an error.
// ok: retrycancel
func decode(resp *http.Response, result any) error {
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return fmt.Errorf("api: unexpected status %s", resp.Status)
	}
	if result == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(result)
}

// Execute sends req and retries while the API answers 429.
// From: zmb3/spotify#212
// The wait for Retry-After uses time.Sleep, so a cancelled request context
// still sleeps for the full server-chosen period (often tens of seconds).
// bug: retrycancel
func (c *APIClient) Execute(req *http.Request, result any) error {
	for {
		resp, err := c.http.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTooManyRequests && c.autoRetry {
			wait := retryAfter(resp)
			resp.Body.Close()
			time.Sleep(wait)
			continue
		}
		err = decode(resp, result)
		resp.Body.Close()
		return err
	}
}

// ExecuteCtx waits for Retry-After with a timer raced against the request
// context.
// From: zmb3/spotify#212
// ok: retrycancel
func (c *APIClient) ExecuteCtx(req *http.Request, result any) error {
	ctx := req.Context()
	for {
		resp, err := c.http.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTooManyRequests && c.autoRetry {
			wait := retryAfter(resp)
			resp.Body.Close()
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			continue
		}
		err = decode(resp, result)
		resp.Body.Close()
		return err
	}
}

// ---------------------------------------------------------------------------
// openconfig/gnmic#351: re-subscribing to a gNMI target.

// Subscriber opens one subscription stream and blocks until it breaks.
type Subscriber interface {
	SubscribeOnce(ctx context.Context, name string) error
}

// Target is one gNMI target with its subscriptions.
type Target struct {
	Name       string
	sub        Subscriber
	logger     Logger
	retryTimer time.Duration
}

// Subscribe keeps the subscription alive across stream failures.
// From: openconfig/gnmic#351
// The back-off between attempts is a plain time.Sleep, so after ctx is
// cancelled the goroutine lingers for up to retryTimer before it notices.
// bug: retrycancel
func (t *Target) Subscribe(ctx context.Context, subName string) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := t.sub.SubscribeOnce(ctx, subName)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		t.logger.Printf("target %s: subscription %s failed: %v; retrying in %s", t.Name, subName, err, t.retryTimer)
		time.Sleep(t.retryTimer)
	}
}

// SubscribeCtx waits between attempts with a timer and leaves on ctx.Done.
// From: openconfig/gnmic#351
// ok: retrycancel
func (t *Target) SubscribeCtx(ctx context.Context, subName string) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		err := t.sub.SubscribeOnce(ctx, subName)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.logger.Printf("target %s: subscription %s failed: %v; retrying in %s", t.Name, subName, err, t.retryTimer)
		timer.Reset(t.retryTimer)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// ---------------------------------------------------------------------------
// scaling-lightning/scaling-lightning#47: generic retry helpers.

// RetryDelay is the pause between attempts.
const RetryDelay = 2 * time.Second

// RetryWithReturn retries op until it succeeds or the timeout elapses.
// From: scaling-lightning/scaling-lightning#47
// The select has a default branch and the pause is time.Sleep, so the loop
// only sees cancellation between sleeps and always burns the full delay.
// bug: retrycancel
func RetryWithReturn[T any](ctx context.Context, timeout time.Duration, op func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			var zero T
			return zero, fmt.Errorf("retry gave up after %s: %w", timeout, errors.Join(ctx.Err(), lastErr))
		default:
			v, err := op(ctx)
			if err == nil {
				return v, nil
			}
			lastErr = err
			time.Sleep(RetryDelay)
		}
	}
}

// RetryWithReturnTimer waits on a timer that races the context.
// From: scaling-lightning/scaling-lightning#47
// ok: retrycancel
func RetryWithReturnTimer[T any](ctx context.Context, timeout time.Duration, op func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	retryTimer := time.NewTimer(0)
	defer retryTimer.Stop()
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			var zero T
			return zero, fmt.Errorf("retry gave up after %s: %w", timeout, errors.Join(ctx.Err(), lastErr))
		case <-retryTimer.C:
			v, err := op(ctx)
			if err == nil {
				return v, nil
			}
			lastErr = err
			retryTimer.Reset(RetryDelay)
		}
	}
}

// ---------------------------------------------------------------------------
// mercari/datastore#62: RPC retry middleware.

// RetryHandler retries datastore RPCs with exponential back-off.
type RetryHandler struct {
	retryLimit   int
	minBackoff   time.Duration
	maxBackoff   time.Duration
	logf         func(format string, args ...any)
	retryableErr func(error) bool
}

// backoff returns the wait before attempt i+1.
// ok: retrycancel
func (rh *RetryHandler) backoff(i int) time.Duration {
	d := rh.minBackoff << i
	if d <= 0 || d > rh.maxBackoff {
		d = rh.maxBackoff
	}
	return d
}

// try runs f, retrying failed attempts up to the limit.
// From: mercari/datastore#62
// Every failure is retried, context.Canceled included, and the back-off is
// a bare timer receive, so a cancelled request goes on for retryLimit rounds.
// bug: retrycancel
func (rh *RetryHandler) try(ctx context.Context, logPrefix string, f func(context.Context) error) error {
	var err error
	for i := 0; ; i++ {
		err = f(ctx)
		if err == nil {
			return nil
		}
		if i >= rh.retryLimit {
			return fmt.Errorf("%s: giving up after %d attempts: %w", logPrefix, i+1, err)
		}
		d := rh.backoff(i)
		rh.logf("%s: attempt %d failed: %v; retrying in %s", logPrefix, i+1, err, d)
		t := time.NewTimer(d)
		<-t.C
	}
}

// tryCtx stops as soon as the context is done and does not retry context
// errors or non-retryable ones.
// From: mercari/datastore#62
// ok: retrycancel
func (rh *RetryHandler) tryCtx(ctx context.Context, logPrefix string, f func(context.Context) error) error {
	var err error
	for i := 0; ; i++ {
		err = f(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !rh.retryableErr(err) || i >= rh.retryLimit {
			return fmt.Errorf("%s: giving up after %d attempts: %w", logPrefix, i+1, err)
		}
		d := rh.backoff(i)
		rh.logf("%s: attempt %d failed: %v; retrying in %s", logPrefix, i+1, err, d)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ---------------------------------------------------------------------------
// brigadecore/brigade#989: polling a job's status.

// JobStatus is the state reported by the scheduler.
type JobStatus string

// Job phases.
const (
	JobRunning   JobStatus = "Running"
	JobSucceeded JobStatus = "Succeeded"
	JobFailed    JobStatus = "Failed"
)

// StatusGetter fetches a job's status.
type StatusGetter interface {
	JobStatus(ctx context.Context, job string) (JobStatus, error)
}

// JobWatcher reports status changes of a job.
type JobWatcher struct {
	api      StatusGetter
	interval time.Duration
	logger   Logger
}

// Watch polls the job and sends every new status to updates.
// From: brigadecore/brigade#989
// The break in the ctx.Done case only leaves the select, so after
// cancellation the loop keeps polling the API (and spinning) until exit.
// bug: retrycancel
func (w *JobWatcher) Watch(ctx context.Context, job string, updates chan<- JobStatus) {
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	var last JobStatus
	for {
		select {
		case <-ctx.Done():
			break
		case <-ticker.C:
		}
		st, err := w.api.JobStatus(ctx, job)
		if err != nil {
			w.logger.Printf("job %s: status: %v", job, err)
			continue
		}
		if st != last {
			last = st
			select {
			case updates <- st:
			case <-ctx.Done():
				return
			}
		}
		if st == JobSucceeded || st == JobFailed {
			return
		}
	}
}

// WatchUntilDone returns from the loop when ctx is done.
// From: brigadecore/brigade#989
// ok: retrycancel
func (w *JobWatcher) WatchUntilDone(ctx context.Context, job string, updates chan<- JobStatus) {
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	var last JobStatus
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		st, err := w.api.JobStatus(ctx, job)
		if err != nil {
			w.logger.Printf("job %s: status: %v", job, err)
			continue
		}
		if st != last {
			last = st
			select {
			case updates <- st:
			case <-ctx.Done():
				return
			}
		}
		if st == JobSucceeded || st == JobFailed {
			return
		}
	}
}

// ---------------------------------------------------------------------------
// cilium/scaffolding#73: waiting on a watched resource.

// WatchEvent is one change to a watched object.
type WatchEvent struct {
	Type   string
	Object map[string]any
}

// Watcher opens a watch on a named resource.
type Watcher interface {
	Watch(ctx context.Context, name string) (<-chan WatchEvent, error)
}

// WaitOnWatchedResource blocks until cond accepts an event for name.
// From: cilium/scaffolding#73
// A failed or closed watch is simply re-opened; once ctx is cancelled Watch
// fails immediately and the loop re-watches forever instead of returning.
// bug: retrycancel
func WaitOnWatchedResource(ctx context.Context, w Watcher, name string, cond func(WatchEvent) bool, logger Logger) error {
	for {
		events, err := w.Watch(ctx, name)
		if err != nil {
			logger.Printf("watch %s failed, re-establishing: %v", name, err)
			continue
		}
		for ev := range events {
			if cond(ev) {
				return nil
			}
		}
		logger.Printf("watch %s closed, re-establishing", name)
	}
}

// WaitOnWatchedResourceCtx returns the context error instead of
// re-watching, and stops reading events when ctx is done.
// From: cilium/scaffolding#73
// ok: retrycancel
func WaitOnWatchedResourceCtx(ctx context.Context, w Watcher, name string, cond func(WatchEvent) bool, logger Logger) error {
	pause := time.NewTimer(0)
	defer pause.Stop()
	<-pause.C
	for {
		events, err := w.Watch(ctx, name)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			logger.Printf("watch %s failed, re-establishing: %v", name, err)
			pause.Reset(time.Second)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-pause.C:
			}
			continue
		}
	read:
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case ev, ok := <-events:
				if !ok {
					break read
				}
				if cond(ev) {
					return nil
				}
			}
		}
		logger.Printf("watch %s closed, re-establishing", name)
	}
}
