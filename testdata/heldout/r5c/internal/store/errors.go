package store

import (
	"context"
	"errors"
	"fmt"
)

// IsContextErr reports whether err is, or wraps, a context cancellation or
// deadline error.
// ok: foldedtimeout
func IsContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Annotate prefixes err with op and keeps err in the chain.
// ok: foldedtimeout
func Annotate(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
