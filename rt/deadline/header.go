package deadline

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Header is the HTTP header that carries the remaining time.
const Header = "Cancelcheck-Timeout"

// ErrCallerDeadline is the cause recorded on a context from [Extract] when
// the caller's propagated deadline passes. Its ctx.Err() is still
// [context.DeadlineExceeded].
var ErrCallerDeadline = errors.New("caller's deadline passed")

// Encode returns the time left before ctx's deadline in the header format,
// and false if ctx has no deadline. A deadline already passed is "0n".
func Encode(ctx context.Context) (string, bool) {
	t, ok := ctx.Deadline()
	if !ok {
		return "", false
	}
	return Format(time.Until(t)), true
}

// Inject sets [Header] in h to the time left before ctx's deadline, or
// deletes it if ctx has no deadline, so that a header copied from an
// incoming request is not passed on stale.
func Inject(ctx context.Context, h http.Header) {
	if v, ok := Encode(ctx); ok {
		h.Set(Header, v)
	} else {
		h.Del(Header)
	}
}

// Extract returns a context derived from ctx that ends when the timeout in
// [Header] elapses, counted from now, with [ErrCallerDeadline] as its
// cause. The earlier of that and ctx's own deadline applies. Without the
// header it returns ctx itself. If the header is malformed or repeated,
// it returns ctx and an error matching [ErrSyntax] or [ErrRange].
//
// The returned cancel function is never nil; call it when the work is
// done, whatever the error, to release the timer.
func Extract(ctx context.Context, h http.Header) (context.Context, context.CancelFunc, error) {
	vals := h.Values(Header)
	switch len(vals) {
	case 0:
		return ctx, func() {}, nil
	case 1:
	default:
		return ctx, func() {}, &parseError{vals[1], ErrSyntax}
	}
	d, err := Parse(vals[0])
	if err != nil {
		return ctx, func() {}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, ErrCallerDeadline)
	return ctx, cancel, nil
}

// Handler returns middleware that runs next under the deadline the caller
// sent in [Header], as [Extract] does. A malformed header gets a 400 Bad
// Request response and next is not called.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel, err := Extract(r.Context(), r.Header)
		defer cancel()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Transport is an [http.RoundTripper] that sets [Header] on each request
// from the deadline of the request's context, as [Inject] does. It copies
// the request before changing it. A zero Transport uses
// [http.DefaultTransport].
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
}

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	_, has := req.Context().Deadline()
	if has || len(req.Header.Values(Header)) > 0 {
		req = req.Clone(req.Context())
		Inject(req.Context(), req.Header)
	}
	return base.RoundTrip(req)
}
