package retry

import (
	"errors"
	"net"
	"net/http"
)

// timeoutRetrier retries idempotent requests that fail with a timeout.
type timeoutRetrier struct {
	next http.RoundTripper
	max  int
}

// RoundTrip retries requests whose error is a net.Error timeout.
// context.DeadlineExceeded satisfies net.Error with Timeout() == true, so once
// the request's own deadline has passed every attempt fails instantly and is
// retried anyway, up to max times, for a caller that has already given up.
// From: temporalio/temporal#890
// bug: retrycancel
func (t *timeoutRetrier) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			return resp, nil
		}
		var ne net.Error
		if attempt >= t.max || !errors.As(err, &ne) || !ne.Timeout() {
			return nil, err
		}
	}
}

// deadlineAwareRetrier retries timeouts only while the request is alive.
type deadlineAwareRetrier struct {
	next http.RoundTripper
	max  int
}

// RoundTrip is the near-miss of timeoutRetrier.RoundTrip: before classifying
// an error as a retryable timeout it checks req.Context(), so a request whose
// own deadline or cancellation caused the failure is not retried.
// From: temporalio/temporal#890
// ok: retrycancel
func (t *deadlineAwareRetrier) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			return resp, nil
		}
		if req.Context().Err() != nil {
			return nil, err
		}
		var ne net.Error
		if attempt >= t.max || !errors.As(err, &ne) || !ne.Timeout() {
			return nil, err
		}
	}
}
