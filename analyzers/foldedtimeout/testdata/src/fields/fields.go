// Package fields holds cancellation lost in the fields of error values and
// in deferred annotations.
package fields

import (
	"context"
	"errors"
	"fmt"
)

func get(ctx context.Context, k string) ([]byte, error) { return nil, ctx.Err() }

type RemoteError struct {
	Node    string
	Message string
}

func (e *RemoteError) Error() string { return e.Node + ": " + e.Message }

// Only the text of err survives.
func forward(ctx context.Context, node, k string) ([]byte, error) {
	v, err := get(ctx, k)
	if err != nil {
		return nil, &RemoteError{Node: node, Message: err.Error()} // want `RemoteError keeps only the text of err in its field Message, so the cancellation err may carry is lost`
	}
	return v, nil
}

// Near-miss: the context's own error is returned first, kept in a
// variable of the if statement; once ctx.Err() is nil, err cannot carry
// ctx's cancellation.
func forwardChecked(ctx context.Context, node, k string) ([]byte, error) {
	v, err := get(ctx, k)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, &RemoteError{Node: node, Message: err.Error()}
	}
	return v, nil
}

// The test of the variable that holds ctx.Err() returns nothing: err goes
// on to lose its cancellation.
func forwardLogged(ctx context.Context, node, k string) ([]byte, error) {
	v, err := get(ctx, k)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			println(ctxErr.Error())
		}
		return nil, &RemoteError{Node: node, Message: err.Error()} // want `RemoteError keeps only the text of err in its field Message`
	}
	return v, nil
}

type WireError struct {
	Message string
	Cause   error
}

func (e *WireError) Error() string { return e.Message }
func (e *WireError) Unwrap() error { return e.Cause }

// Near-miss: the cause is kept too.
func forwardWire(ctx context.Context, k string) ([]byte, error) {
	v, err := get(ctx, k)
	if err != nil {
		return nil, &WireError{Message: err.Error(), Cause: err}
	}
	return v, nil
}

// Near-miss: a plain struct, not an error, carries text across the wire.
type Reply struct{ Err string }

func reply(ctx context.Context, k string) Reply {
	if _, err := get(ctx, k); err != nil {
		return Reply{Err: err.Error()}
	}
	return Reply{}
}

// A deferred annotation with %s loses the identity of the named result.
func call(ctx context.Context, m string) (resp []byte, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("rpc %s: %s", m, err) // want `fmt.Errorf formats err with %s`
		}
	}()
	return get(ctx, m)
}

// Near-miss: %w in the same place.
func callWrapped(ctx context.Context, m string) (resp []byte, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("rpc %s: %w", m, err)
		}
	}()
	return get(ctx, m)
}

// errors.As with a sentinel's address matches everything.
func failed(ctx context.Context, k string) bool {
	_, err := get(ctx, k)
	return err != nil && !errors.As(err, &context.Canceled) // want `errors.As with &context.Canceled as its target matches every error`
}

// Near-miss: errors.Is.
func failedIs(ctx context.Context, k string) bool {
	_, err := get(ctx, k)
	return err != nil && !errors.Is(err, context.Canceled)
}

type StatusError struct {
	StatusCode   int
	ErrorMessage string
}

func (e StatusError) Error() string { return e.ErrorMessage }

// Near-miss: a status error for an API response, read by its code.
func status(ctx context.Context, k string) error {
	if _, err := get(ctx, k); err != nil {
		return StatusError{StatusCode: 500, ErrorMessage: err.Error()}
	}
	return nil
}

// Two formattings in one function: one finding, the other a related place.
func twice(ctx context.Context, a, b string) error {
	if _, err := get(ctx, a); err != nil {
		return fmt.Errorf("get %s: %v", a, err) // want `fmt.Errorf formats err with %v.* \(and 1 more in twice\)`
	}
	if _, err := get(ctx, b); err != nil {
		return fmt.Errorf("get %s: %v", b, err)
	}
	return nil
}
