package retry

import (
	"errors"
	"strconv"
)

// Permanent marks err as not worth retrying: [Do] returns err (unwrapped
// from the mark) at once. Permanent(nil) is nil. The mark is found through
// wrapping, so fmt.Errorf("...: %w", Permanent(err)) is permanent too.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err carries the mark of [Permanent].
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// An Error is returned by [Do] when it stops without success for a reason
// other than a permanent error. [errors.Is] matches it against both Last
// and Cause.
type Error struct {
	// Attempts is the number of attempts made.
	Attempts int
	// Last is the error of the last attempt, or nil if none was made
	// because the context had ended before the first.
	Last error
	// Cause is why Do stopped: [ErrExhausted] when the budget ran out,
	// or [stop.Err] of the caller's context when it ended.
	Cause error
}

func (e *Error) Error() string {
	s := "retry: " + strconv.Itoa(e.Attempts) + " attempt"
	if e.Attempts != 1 {
		s += "s"
	}
	if e.Last != nil {
		s += ": " + e.Last.Error()
	}
	return s + " (" + e.Cause.Error() + ")"
}

// Unwrap returns Last and Cause, leaving out a nil Last.
func (e *Error) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Cause}
	}
	return []error{e.Last, e.Cause}
}
