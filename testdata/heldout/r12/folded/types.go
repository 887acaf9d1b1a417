package folded

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrorSlice collects per-key errors from a batch load.
type ErrorSlice []error

// Error joins the messages of all collected errors.
// ok: foldedtimeout
func (e ErrorSlice) Error() string {
	msgs := make([]string, 0, len(e))
	for _, err := range e {
		msgs = append(msgs, err.Error())
	}
	return strings.Join(msgs, "; ")
}

// ErrorList is ErrorSlice with an Unwrap method for errors.Is/As.
type ErrorList []error

// Error joins the messages of all collected errors.
// ok: foldedtimeout
func (e ErrorList) Error() string {
	msgs := make([]string, 0, len(e))
	for _, err := range e {
		msgs = append(msgs, err.Error())
	}
	return strings.Join(msgs, "; ")
}

// Unwrap exposes the collected errors.
// ok: foldedtimeout
func (e ErrorList) Unwrap() []error {
	return e
}

// FetchFunc loads values for a batch of keys; errs is parallel to keys.
type FetchFunc[K comparable, V any] func(ctx context.Context, keys []K) ([]V, []error)

// Loader batches key lookups.
type Loader[K comparable, V any] struct {
	fetch FetchFunc[K, V]
}

// LoadAll loads every key and reports all per-key failures.
// From: vikstrous/dataloadgen#24
// bug: foldedtimeout
func (l *Loader[K, V]) LoadAll(ctx context.Context, keys []K) ([]V, error) {
	vals, errs := l.fetch(ctx, keys)
	var failed ErrorSlice
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return vals, failed
	}
	return vals, nil
}

// LoadAllNearMiss returns an error list that unwraps to its members.
// ok: foldedtimeout
func (l *Loader[K, V]) LoadAllNearMiss(ctx context.Context, keys []K) ([]V, error) {
	vals, errs := l.fetch(ctx, keys)
	var failed ErrorList
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return vals, failed
	}
	return vals, nil
}

// Notification is a LISTEN/NOTIFY payload.
type Notification struct {
	Channel string
	Payload string
}

// netTimeoutError looks like a net.Error timeout.
type netTimeoutError struct {
	msg string
}

// Error returns the message.
// ok: foldedtimeout
func (e *netTimeoutError) Error() string { return e.msg }

// Timeout reports true so callers treat it like a network timeout.
// ok: foldedtimeout
func (e *netTimeoutError) Timeout() bool { return true }

// Temporary reports true.
// ok: foldedtimeout
func (e *netTimeoutError) Temporary() bool { return true }

// ctxWaitError reports a context that ended a wait, keeping the cause.
type ctxWaitError struct {
	op  string
	err error
}

// Error returns the operation and cause.
// ok: foldedtimeout
func (e *ctxWaitError) Error() string { return e.op + ": " + e.err.Error() }

// Timeout reports whether the wait ended by deadline.
// ok: foldedtimeout
func (e *ctxWaitError) Timeout() bool { return errors.Is(e.err, context.DeadlineExceeded) }

// Unwrap returns the context error.
// ok: foldedtimeout
func (e *ctxWaitError) Unwrap() error { return e.err }

// PgConn is a connection listening for notifications.
type PgConn struct {
	notifications chan *Notification
	closed        chan struct{}
}

var errConnClosed = errors.New("conn closed")

// WaitForNotification blocks until a notification arrives.
// From: jackc/pgconn#81
// bug: foldedtimeout
func (c *PgConn) WaitForNotification(ctx context.Context) (*Notification, error) {
	select {
	case n := <-c.notifications:
		return n, nil
	case <-c.closed:
		return nil, errConnClosed
	case <-ctx.Done():
		return nil, &netTimeoutError{msg: "wait for notification: " + ctx.Err().Error()}
	}
}

// WaitForNotificationNearMiss returns an error that unwraps to ctx.Err().
// ok: foldedtimeout
func (c *PgConn) WaitForNotificationNearMiss(ctx context.Context) (*Notification, error) {
	select {
	case n := <-c.notifications:
		return n, nil
	case <-c.closed:
		return nil, errConnClosed
	case <-ctx.Done():
		return nil, &ctxWaitError{op: "wait for notification", err: ctx.Err()}
	}
}

// Fields are structured log fields attached to an error.
type Fields map[string]any

// fieldError carries fields and the cause but cannot be unwrapped.
type fieldError struct {
	cause  error
	fields Fields
}

// Error renders the cause and the fields.
// ok: foldedtimeout
func (e *fieldError) Error() string {
	return fmt.Sprintf("%s %v", e.cause.Error(), e.fields)
}

// unwrappableFieldError is fieldError with Unwrap.
type unwrappableFieldError struct {
	cause  error
	fields Fields
}

// Error renders the cause and the fields.
// ok: foldedtimeout
func (e *unwrappableFieldError) Error() string {
	return fmt.Sprintf("%s %v", e.cause.Error(), e.fields)
}

// Unwrap returns the cause.
// ok: foldedtimeout
func (e *unwrappableFieldError) Unwrap() error { return e.cause }

// BlobStore stores blobs.
type BlobStore interface {
	Put(ctx context.Context, key string, body []byte) error
}

// Uploader uploads attachments.
type Uploader struct {
	store BlobStore
}

// Upload stores body and annotates failures with the key and size.
// From: mailgun/holster#170
// bug: foldedtimeout
func (u *Uploader) Upload(ctx context.Context, key string, body []byte) error {
	if err := u.store.Put(ctx, key, body); err != nil {
		return &fieldError{cause: err, fields: Fields{"key": key, "size": len(body)}}
	}
	return nil
}

// UploadNearMiss annotates with an error type that unwraps to the cause.
// ok: foldedtimeout
func (u *Uploader) UploadNearMiss(ctx context.Context, key string, body []byte) error {
	if err := u.store.Put(ctx, key, body); err != nil {
		return &unwrappableFieldError{cause: err, fields: Fields{"key": key, "size": len(body)}}
	}
	return nil
}

// RPCTimeoutError reports that a call ran out of its RPC timeout.
type RPCTimeoutError struct {
	Method  string
	Timeout time.Duration
	Cause   error
}

// Error describes the timeout.
// ok: foldedtimeout
func (e *RPCTimeoutError) Error() string {
	return fmt.Sprintf("rpc timeout: method=%s timeout=%s", e.Method, e.Timeout)
}

// Unwrap returns the cause, or DeadlineExceeded when none was recorded.
// ok: foldedtimeout
func (e *RPCTimeoutError) Unwrap() error {
	if e.Cause != nil {
		return e.Cause
	}
	return context.DeadlineExceeded
}

// Invoker performs the remote call.
type Invoker interface {
	Invoke(ctx context.Context, method string, req any) (any, error)
}

// RPCClient calls remote methods with a per-call timeout.
type RPCClient struct {
	conn       Invoker
	rpcTimeout time.Duration
}

// Call invokes method with the configured RPC timeout.
// From: cloudwego/kitex#838
// bug: foldedtimeout
func (c *RPCClient) Call(ctx context.Context, method string, req any) (any, error) {
	cctx, cancel := context.WithTimeout(ctx, c.rpcTimeout)
	defer cancel()
	resp, err := c.conn.Invoke(cctx, method, req)
	if err != nil {
		if cctx.Err() != nil {
			return nil, &RPCTimeoutError{Method: method, Timeout: c.rpcTimeout}
		}
		return nil, fmt.Errorf("call %s: %w", method, err)
	}
	return resp, nil
}

// CallNearMiss only reports a timeout when the deadline actually passed.
// ok: foldedtimeout
func (c *RPCClient) CallNearMiss(ctx context.Context, method string, req any) (any, error) {
	cctx, cancel := context.WithTimeout(ctx, c.rpcTimeout)
	defer cancel()
	resp, err := c.conn.Invoke(cctx, method, req)
	if err != nil {
		if cerr := cctx.Err(); cerr != nil {
			if errors.Is(cerr, context.DeadlineExceeded) {
				return nil, &RPCTimeoutError{Method: method, Timeout: c.rpcTimeout, Cause: cerr}
			}
			return nil, fmt.Errorf("call %s: %w", method, cerr)
		}
		return nil, fmt.Errorf("call %s: %w", method, err)
	}
	return resp, nil
}
