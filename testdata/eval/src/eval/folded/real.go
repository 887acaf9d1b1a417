package folded

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

type Informer interface {
	WaitForSync(ctx context.Context) bool
	Run(ctx context.Context) error
}

// Modelled on a watch helper that formatted ctx.Err() with %v so callers
// could not tell a deadline from a failure.
//
// bug: foldedtimeout
func UntilSynced(ctx context.Context, inf Informer) error {
	if !inf.WaitForSync(ctx) {
		return fmt.Errorf("unable to sync caches: %v", ctx.Err())
	}
	return nil
}

var ErrFatal = errors.New("fatal processing error")

// Modelled on a chunk writer that wrapped the sentinel with %w but the
// write error with %v.
//
// bug: foldedtimeout
func (c *Client) WriteChunk(ctx context.Context, r Record) error {
	if err := c.be.Write(ctx, r); err != nil {
		return fmt.Errorf("%w: writing chunk: %v", ErrFatal, err)
	}
	return nil
}

type execState struct {
	abort func(error)
	done  chan struct{}
}

// Modelled on an executor that aborted with errors.New("context done")
// instead of the context's error.
//
// bug: foldedtimeout
func (es *execState) wait(ctx context.Context) {
	select {
	case <-es.done:
	case <-ctx.Done():
		es.abort(errors.New("context done"))
	}
}

// Modelled on a log walker that compared the iterator's error with ==.
//
// bug: foldedtimeout
func (c *Client) Walk(ctx context.Context, from string) (int, error) {
	n := 0
	for {
		rs, err := c.be.Scan(ctx, from, 50)
		if err != nil {
			if err == context.DeadlineExceeded {
				return n, ErrTimeout
			}
			return n, err
		}
		if len(rs) == 0 {
			return n, nil
		}
		n += len(rs)
		from = rs[len(rs)-1].Key
	}
}

// RemoteError is a failed remote call; it keeps the cause only as text.
type RemoteError struct {
	Method string
	cause  error
}

// ok: foldedtimeout
func (e RemoteError) Error() string { return fmt.Sprintf("%s: %v", e.Method, e.cause) }

// bug: foldedtimeout
func (c *Client) Call(ctx context.Context, method string) error {
	if _, err := c.be.Read(ctx, method); err != nil {
		return RemoteError{Method: method, cause: err}
	}
	return nil
}

// Text match on the message instead of errors.Is.
//
// bug: foldedtimeout
func (c *Client) Outcome(ctx context.Context, key string) string {
	_, err := c.be.Read(ctx, key)
	switch {
	case err == nil:
		return "ok"
	case err.Error() == "context canceled":
		return "canceled"
	default:
		return "failed"
	}
}

// ok: foldedtimeout
func UntilSyncedOK(ctx context.Context, inf Informer) error {
	if !inf.WaitForSync(ctx) {
		return fmt.Errorf("unable to sync caches: %w", ctx.Err())
	}
	return nil
}

// ok: foldedtimeout
func (c *Client) WriteChunkOK(ctx context.Context, r Record) error {
	if err := c.be.Write(ctx, r); err != nil {
		return fmt.Errorf("%w: writing chunk: %w", ErrFatal, err)
	}
	return nil
}

// ok: foldedtimeout
func (es *execState) waitOK(ctx context.Context) {
	select {
	case <-es.done:
	case <-ctx.Done():
		es.abort(context.Cause(ctx))
	}
}

// Validation errors never carry cancellation.
//
// ok: foldedtimeout
func Validate(r Record) error {
	if strings.TrimSpace(r.Key) == "" {
		err := errors.New("empty key")
		return fmt.Errorf("validate %q: %v", r.Val, err)
	}
	return nil
}

// ok: foldedtimeout
func (c *Client) Run(ctx context.Context, inf Informer) error {
	err := inf.Run(ctx)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("informer stopped: %w", err)
	}
	return err
}

// A translation to a different error class is deliberate when the context
// error is kept.
//
// ok: foldedtimeout
func (c *Client) Translate(ctx context.Context, key string) error {
	_, err := c.be.Read(ctx, key)
	var re RemoteError
	if errors.As(err, &re) {
		return fmt.Errorf("remote %s failed: %w", re.Method, err)
	}
	return err
}
