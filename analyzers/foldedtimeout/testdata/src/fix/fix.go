package fix

import (
	"context"
	"errors"
	"fmt"

	"store"
)

var ErrTimeout = errors.New("timed out")

type QueryError struct {
	Query string
	Err   error
}

func (e *QueryError) Error() string { return e.Query + ": " + e.Err.Error() }

func verb(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		return fmt.Errorf("put %q: %v", k, err) // want `formats err with %v`
	}
	return nil
}

func errorText(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return fmt.Errorf("put: %s", err.Error()) // want `formats err with %s`
	}
	return nil
}

func text(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New(err.Error()) // want `builds a new error`
	}
	return nil
}

func prefixed(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New("100% failed: " + err.Error()) // want `builds a new error`
	}
	return nil
}

func timeout(ctx context.Context, ch <-chan int) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ErrTimeout // want `reports ctx's end as a timeout`
	case v := <-ch:
		return v, nil
	}
}

func aborted(ctx context.Context, ch <-chan int) (int, error) {
	select {
	case <-ctx.Done():
		return 0, errors.New("50% done, aborted") // want `replaces ctx's end with a new error`
	case v := <-ch:
		return v, nil
	}
}

func stopped(ctx context.Context, n int) error {
	if ctx.Err() != nil {
		return fmt.Errorf("stopped after %d items", n) // want `replaces ctx's end with a new error`
	}
	return nil
}

func eq(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return err != context.Canceled // want `misses a wrapped cancellation`
}

func sw(ctx context.Context) int {
	err := store.Put(ctx, "k", "v")
	switch err { // want `switch on err`
	case nil:
		return 0
	case context.Canceled, context.DeadlineExceeded:
		return 1
	}
	return 2
}

func swapped(err error) bool {
	return errors.Is(context.DeadlineExceeded, err) // want `swapped`
}

func query(ctx context.Context, q string) error {
	if err := store.Put(ctx, q, "v"); err != nil {
		return &QueryError{Query: q, Err: err} // want `QueryError stores err`
	}
	return nil
}

func either(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return err == context.Canceled || err == context.DeadlineExceeded // want `misses a wrapped cancellation`
}

func sprintfNew(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New(fmt.Sprintf("put %s: %v", "k", err)) // want `builds a new error`
	}
	return nil
}

func textNeq(err error) bool {
	return err.Error() != context.Canceled.Error() // want `matching the text`
}

type aborter struct{ abort func(error) }

func (a *aborter) wait(ctx context.Context, done <-chan struct{}) {
	select {
	case <-done:
	case <-ctx.Done():
		a.abort(errors.New("context done")) // want `passed to a.abort, replaces ctx's end with a new error`
	}
}

func twiceFix(ctx context.Context, a, b string) error {
	if err := store.Put(ctx, a, "v"); err != nil {
		return fmt.Errorf("step %s: %v", a, err) // want `and 1 more in twiceFix`
	}
	if err := store.Put(ctx, b, "v"); err != nil {
		return fmt.Errorf("step %s: %v", b, err)
	}
	return nil
}

type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprint("code ", e.code) }

func tryOnce(ctx context.Context) (int, error) { return 0, ctx.Err() }

// The last failure is returned when ctx ends: the fix wraps the cause too.
func retryLast(ctx context.Context, tick <-chan struct{}) (int, error) {
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			return 0, lastErr // want `lastErr can still hold the error value set at line`
		case <-tick:
		}
		code, err := tryOnce(ctx)
		if err != nil {
			lastErr = err
			continue
		}
		if code >= 500 {
			lastErr = &codeError{code}
			continue
		}
		return code, nil
	}
}
