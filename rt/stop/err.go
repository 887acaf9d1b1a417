package stop

import (
	"context"
	"errors"
)

// Err returns nil while ctx has not ended. Once it has, Err returns an error
// that [errors.Is] matches against both ctx.Err() (the mechanism:
// [context.Canceled] or [context.DeadlineExceeded]) and [context.Cause]
// (the recorded reason). When the two are the same error, that error is
// returned unchanged.
//
// Use Err where code would return ctx.Err(): callers that test for
// [context.Canceled] keep working, and callers that want the cause can
// find it. Successive calls after ctx ends return equivalent errors.
func Err(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	err := ctx.Err()
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if cause == nil || cause == err {
		return err
	}
	return &ctxError{err: err, cause: cause}
}

// Wrap returns err with the end of ctx attached: the result matches err,
// ctx.Err() and [context.Cause] under [errors.Is]. Its message is err's.
//
// Wrap returns nil when err is nil: it annotates failures and never
// invents one. It returns err unchanged when ctx has not ended or when
// err already matches both ctx.Err() and the cause.
func Wrap(ctx context.Context, err error) error {
	if err == nil || ctx == nil {
		return err
	}
	ce := ctx.Err()
	if ce == nil {
		return err
	}
	cause := context.Cause(ctx)
	if cause == nil {
		cause = ce
	}
	if errors.Is(err, cause) && errors.Is(err, ce) {
		return err
	}
	return &wrapError{err: err, end: Err(ctx)}
}

// ctxError is the result of [Err] when the cause differs from ctx.Err().
type ctxError struct {
	err   error // ctx.Err()
	cause error // context.Cause(ctx)
}

func (e *ctxError) Error() string   { return e.err.Error() + ": " + e.cause.Error() }
func (e *ctxError) Unwrap() []error { return []error{e.cause, e.err} }

// wrapError is the result of [Wrap].
type wrapError struct {
	err error // the operation's error
	end error // Err(ctx)
}

func (e *wrapError) Error() string   { return e.err.Error() }
func (e *wrapError) Unwrap() []error { return []error{e.err, e.end} }
