package retry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RetryParams configures the API executor.
type RetryParams struct {
	MaxRetry    int
	MinWaitInMs int
}

// APIExecutor sends API requests with retries.
type APIExecutor struct {
	client *http.Client
	params RetryParams
	sleep  func(time.Duration)
}

// determineRetry decides whether to try again and how long to wait first.
// Network failures and 429/5xx responses are retried; Retry-After wins when
// present.
//
// ok: retrycancel
func (e *APIExecutor) determineRetry(attempt int, resp *http.Response, err error) (bool, time.Duration) {
	base := time.Duration(e.params.MinWaitInMs) * time.Millisecond << attempt
	if err != nil {
		var nerr net.Error
		if errors.As(err, &nerr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return true, base
		}
		return false, 0
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return false, 0
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, perr := strconv.Atoi(s); perr == nil {
			return true, time.Duration(secs) * time.Second
		}
	}
	return true, base
}

// Execute sends req, retrying as determineRetry says.
//
// From: openfga/go-sdk#270
// bug: retrycancel
func (e *APIExecutor) Execute(ctx context.Context, newReq func(context.Context) (*http.Request, error)) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= e.params.MaxRetry; attempt++ {
		req, err := newReq(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := e.client.Do(req)
		retry, wait := e.determineRetry(attempt, resp, err)
		if !retry {
			return resp, err
		}
		if resp != nil {
			resp.Body.Close()
		}
		lastErr = err
		e.sleep(wait)
	}
	return nil, lastErr
}

// ExecuteNearMiss treats the end of the caller's context as final and waits
// between attempts in a way that cancellation interrupts.
//
// ok: retrycancel
func (e *APIExecutor) ExecuteNearMiss(ctx context.Context, newReq func(context.Context) (*http.Request, error)) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= e.params.MaxRetry; attempt++ {
		req, err := newReq(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := e.client.Do(req)
		if ctxErr := ctx.Err(); ctxErr != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, ctxErr
		}
		retry, wait := e.determineRetry(attempt, resp, err)
		if !retry {
			return resp, err
		}
		if resp != nil {
			resp.Body.Close()
		}
		lastErr = err
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}
