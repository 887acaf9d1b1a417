package a

import (
	"context"
	"errors"
)

type failureKind int

const (
	failureOther failureKind = iota
	failureTimeout
	failureCanceled
)

// A cancellation labeled a timeout.
func classifyFailure(err error) failureKind {
	kind := failureOther
	switch {
	case errors.Is(err, context.Canceled):
		kind = failureTimeout // want `this branch is taken for a cancellation \(errors.Is\(err, context.Canceled\)\) and labels it failureTimeout: work the caller canceled is counted as a timeout`
	case errors.Is(err, context.DeadlineExceeded):
		kind = failureTimeout
	}
	return kind
}

// Each end keeps its own label.
func classifyFailureOK(err error) failureKind {
	kind := failureOther
	switch {
	case errors.Is(err, context.Canceled):
		kind = failureCanceled
	case errors.Is(err, context.DeadlineExceeded):
		kind = failureTimeout
	}
	return kind
}

var metricTimeout = "timeout"

// The if form, with a package variable.
func labelFailure(err error) string {
	l := "other"
	if errors.Is(err, context.Canceled) {
		l = metricTimeout // want `labels it metricTimeout`
	}
	return l
}
