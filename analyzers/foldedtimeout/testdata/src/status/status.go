// Package status is a stub of a gRPC-style status package.
package status

type Code int

const (
	OK Code = iota
	Canceled
	DeadlineExceeded
	Unavailable
)

type statusError struct{ c Code }

func (e *statusError) Error() string { return "status" }

func Error(c Code, msg string) error { return &statusError{c} }
