package a

import (
	"context"
	"errors"
	"fmt"
)

// apiError is a server's decoded error: no Unwrap, no Is.
type apiError struct{ Code string }

func (e *apiError) Error() string { return e.Code }

func create(ctx context.Context, name string) error { return ctx.Err() }

// Inside the assertion's branch err is an *apiError, which cannot be a
// cancellation: its text loses nothing errors.Is could see.
func createNamed(ctx context.Context, name string) error {
	err := create(ctx, name)
	if apiErr, ok := err.(*apiError); ok {
		if apiErr.Code == "nameAlreadyExists" {
			err = errors.New(err.Error() + " (is it a OneNote file?)")
		}
	}
	return err
}

// The same in a type switch.
func createSwitch(ctx context.Context, name string) error {
	err := create(ctx, name)
	switch err.(type) {
	case *apiError:
		return fmt.Errorf("create %s: %v", name, err)
	}
	return err
}

// Near miss: outside the branch err may be the cancellation.
func createOther(ctx context.Context, name string) error {
	err := create(ctx, name)
	if _, ok := err.(*apiError); !ok && err != nil {
		return errors.New(err.Error() + " (retry later)") // want `errors.New builds a new error from err.Error\(\)`
	}
	return err
}
