package folded

import (
	"context"
	"encoding/json"
	"fmt"
)

// OpError describes a failed protocol call; the cause is kept as text.
type OpError struct {
	Domain, Op string
	Msg        string
}

// Error formats the failure.
// ok: foldedtimeout
func (e *OpError) Error() string {
	return fmt.Sprintf("cdp.%s: %s: %s", e.Domain, e.Op, e.Msg)
}

// CallError describes a failed protocol call and keeps its cause.
type CallError struct {
	Domain, Op string
	Err        error
}

// Error formats the failure.
// ok: foldedtimeout
func (e *CallError) Error() string {
	return fmt.Sprintf("cdp.%s: %s: %v", e.Domain, e.Op, e.Err)
}

// Unwrap exposes the cause to errors.Is/As.
// ok: foldedtimeout
func (e *CallError) Unwrap() error { return e.Err }

// Conn is a DevTools protocol connection; send performs one round trip.
type Conn struct {
	send func(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Invoke sends a protocol command and waits for the reply. A failure is
// stored as a string in OpError.Msg, so "context deadline exceeded" from the
// round trip can no longer be recognised with errors.Is by the caller that
// retries on timeouts.
// From: mafredri/cdp#123
// bug: foldedtimeout
func (c *Conn) Invoke(ctx context.Context, domain, op string, params any) (json.RawMessage, error) {
	reply, err := c.send(ctx, domain+"."+op, params)
	if err != nil {
		return nil, &OpError{Domain: domain, Op: op, Msg: err.Error()}
	}
	return reply, nil
}

// Call is the near-miss of Invoke: the failure is wrapped in CallError, which
// keeps the cause and unwraps to it, so errors.Is still sees the deadline.
// From: mafredri/cdp#123
// ok: foldedtimeout
func (c *Conn) Call(ctx context.Context, domain, op string, params any) (json.RawMessage, error) {
	reply, err := c.send(ctx, domain+"."+op, params)
	if err != nil {
		return nil, &CallError{Domain: domain, Op: op, Err: err}
	}
	return reply, nil
}
