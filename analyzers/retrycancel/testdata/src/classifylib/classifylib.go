// Package classifylib holds error classifiers used by another package:
// their verdicts on a cancellation travel as facts.
package classifylib

import (
	"context"
	"errors"
	"net"
)

var ErrUnavailable = errors.New("unavailable")

// Transient says true for any failure but a permanent one: a cancellation
// too.
func Transient(err error) bool {
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		return true
	}
	return err != nil
}

// Retryable says false for the context's errors.
func Retryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return err != nil
}
