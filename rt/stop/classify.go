package stop

import (
	"context"
	"errors"
)

// Classify reports why work that ran under ctx and returned err stopped.
//
//   - A nil err is [Finished], whatever the state of ctx.
//   - If ctx has ended and err matches ctx.Err() or [context.Cause] under
//     [errors.Is], the end of ctx decides: a cause matching [ErrShutdown]
//     is [ShutDown]; otherwise ctx.Err() names the mechanism, so a
//     deadline is [TimedOut] even when it carries a custom cause, and a
//     cancellation is [Canceled] even when its cause is
//     [context.DeadlineExceeded].
//   - Otherwise err alone decides. An error built by [Err] or [Wrap] for
//     another context reports that context's end as above. Then
//     [ErrShutdown] is [ShutDown],
//     [context.DeadlineExceeded] (an inner timeout) is [TimedOut],
//     [context.Canceled] is [Canceled], and anything else is [Failed].
//
// An error that does not wrap the context's error is a failure of its own,
// even if ctx ended meanwhile; operations that lose the context's error
// (for example by closing a connection on cancel) should return
// [Wrap](ctx, err) to be classified as stopped rather than failed.
// A nil ctx is treated as one that never ends.
func Classify(ctx context.Context, err error) Reason {
	if err == nil {
		return Finished
	}
	if ctx != nil {
		if ce := ctx.Err(); ce != nil {
			cause := context.Cause(ctx)
			if errors.Is(err, ce) || (cause != nil && errors.Is(err, cause)) {
				switch {
				case cause != nil && errors.Is(cause, ErrShutdown):
					return ShutDown
				case ce == context.DeadlineExceeded:
					return TimedOut
				default:
					return Canceled
				}
			}
		}
	}
	var end *ctxError
	if errors.As(err, &end) {
		// An error from Err or Wrap for some other context: it knows its
		// own mechanism, which must win over whichever sentinel the
		// cause happens to match.
		switch {
		case errors.Is(end.cause, ErrShutdown):
			return ShutDown
		case end.err == context.DeadlineExceeded:
			return TimedOut
		default:
			return Canceled
		}
	}
	switch {
	case errors.Is(err, ErrShutdown):
		return ShutDown
	case errors.Is(err, context.DeadlineExceeded):
		return TimedOut
	case errors.Is(err, context.Canceled):
		return Canceled
	default:
		return Failed
	}
}
