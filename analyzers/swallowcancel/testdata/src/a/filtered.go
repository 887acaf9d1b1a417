package a

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"store"
)

type material struct {
	value   string
	created time.Time
}

// prepare lets a canceled Get through to the success return: the caller
// gets material built from the empty value of a call that never finished.
func prepare(ctx context.Context, k string) (*material, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) { // want `when err is a cancellation this test lets it past the failure branch, so prepare returns results built from a canceled call with a nil error`
		return nil, fmt.Errorf("get %s: %w", k, err)
	}
	m := &material{value: v, created: time.Now()}
	log.Printf("material ready: %q", m.value)
	return m, nil
}

// prepareSentinel is the same with == in place of errors.Is.
func prepareSentinel(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != context.DeadlineExceeded && err != nil { // want `when err is a cancellation this test lets it past the failure branch, so prepareSentinel returns results`
		return "", err
	}
	return v + "!", nil
}

// prepareChecked returns every failure, the cancellation included.
func prepareChecked(ctx context.Context, k string) (*material, error) {
	v, err := store.Get(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", k, err)
	}
	return &material{value: v, created: time.Now()}, nil
}

// prepareRechecked tests the context again before building the result.
func prepareRechecked(ctx context.Context, k string) (*material, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &material{value: v}, nil
}

// prepareFallback does more context-bound work after the filter, where the
// cancellation surfaces.
func prepareFallback(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return "", err
	}
	w, err := store.Lookup(ctx, v)
	if err != nil {
		return "", err
	}
	return w, nil
}

// runUntilCanceled returns only its error: cancellation is its stop, the
// convention of Run methods.
func runUntilCanceled(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// lookupOrEmpty returns zero values after the filter: the caller gets
// nothing it could take for a result.
func lookupOrEmpty(ctx context.Context, k string) (string, error) {
	_, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return "", err
	}
	return "", nil
}

// prepareErrUsed hands the error on with the result.
func prepareErrUsed(ctx context.Context, k string) (*material, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	return &material{value: v}, err
}

// prepareNotFound filters a different error.
func prepareNotFound(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, errMissing) {
		return "", err
	}
	return v + "?", nil
}

// recordFiltered returns only its error, but the filtered cancellation goes
// on to store the half-done result as a finished one.
func recordFiltered(ctx context.Context, k string) error {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) { // want `when err is a cancellation this test lets it past the failure branch, so recordFiltered records the canceled call's results with store.Put as if it had finished and does not return the cancellation`
		return err
	}
	if err != nil {
		log.Printf("get %s canceled", k)
	}
	return store.Put(ctx, k, v)
}

// recordOther stores something that is not the canceled call's result: a
// Run that goes on to its next step.
func recordOther(ctx context.Context, k string) error {
	_, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return store.Put(ctx, k, "done")
}

// recordRechecked reads the error again before recording.
func recordRechecked(ctx context.Context, k string) error {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if err != nil {
		return fmt.Errorf("get %s: %w", k, err)
	}
	return store.Put(ctx, k, v)
}
