package fields

import "context"

// ExitStatusError is an exit status with the error that caused it.
type ExitStatusError struct {
	Status     string
	StatusCode int
	Cause      error
}

func (e ExitStatusError) Error() string { return e.Status }

func (e ExitStatusError) Unwrap() error { return e.Cause }

// The type keeps causes, but this literal copies the text and leaves
// Cause unset: a code beside the text does not excuse it.
func waitStatus(ctx context.Context, id string) error {
	if _, err := get(ctx, id); err != nil {
		return ExitStatusError{Status: err.Error(), StatusCode: 125} // want `ExitStatusError keeps only the text of err in its field Status, .*; set its field Cause, which Unwrap returns, to err`
	}
	return nil
}

// Near miss: the cause is kept.
func waitStatusCause(ctx context.Context, id string) error {
	if _, err := get(ctx, id); err != nil {
		return ExitStatusError{Status: err.Error(), StatusCode: 125, Cause: err}
	}
	return nil
}

// CodeOnlyError is a status read by its code; it keeps no cause.
type CodeOnlyError struct {
	Message string
	Code    int
}

func (e *CodeOnlyError) Error() string { return e.Message }

// Near miss: a wire error with a code and no slot for a cause.
func wire(ctx context.Context, id string) error {
	if _, err := get(ctx, id); err != nil {
		return &CodeOnlyError{Message: err.Error(), Code: 500}
	}
	return nil
}
