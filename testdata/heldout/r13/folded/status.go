package folded

import (
	"context"
	"errors"
	"fmt"
)

// Code is a gRPC-style status code.
type Code int

// Status codes used by the frontend.
const (
	CodeOK Code = iota
	CodeCanceled
	CodeUnknown
	CodeDeadlineExceeded
	CodeInternal
	CodeUnavailable
)

// StatusError is a wire status with a code and a message.
type StatusError struct {
	Code    Code
	Message string
}

// Error implements error.
// ok: foldedtimeout
func (s *StatusError) Error() string {
	return fmt.Sprintf("rpc error: code = %d desc = %s", s.Code, s.Message)
}

// statusWithCause is a StatusError that also keeps its cause.
type statusWithCause struct {
	StatusError
	cause error
}

// Unwrap returns the cause.
// ok: foldedtimeout
func (s *statusWithCause) Unwrap() error {
	return s.cause
}

// ToStatus converts a handler error for the wire. Anything that is not
// already a StatusError becomes Unknown with the error's text, so
// context.Canceled reaches the client as codes.Unknown.
// From: temporalio/api-go#72
// bug: foldedtimeout
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	var st *StatusError
	if errors.As(err, &st) {
		return st
	}
	return &StatusError{Code: CodeUnknown, Message: err.Error()}
}

// ToStatusNearMiss maps context errors to their own codes and keeps them
// reachable through Unwrap.
// ok: foldedtimeout
func ToStatusNearMiss(err error) error {
	if err == nil {
		return nil
	}
	var st *StatusError
	if errors.As(err, &st) {
		return st
	}
	code := CodeUnknown
	switch {
	case errors.Is(err, context.Canceled):
		code = CodeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		code = CodeDeadlineExceeded
	}
	return &statusWithCause{StatusError: StatusError{Code: code, Message: err.Error()}, cause: err}
}
