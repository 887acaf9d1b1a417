// Package app uses lib's helpers: its findings depend on facts computed in
// another package.
package app

import (
	"context"
	"os"
	"sync"

	"eval/xpkg/lib"
)

type Remote interface {
	Call(ctx context.Context, method string) error
}

// The backoff sleeps in another package, out of the context's reach.
//
// bug: retrycancel
func Connect(ctx context.Context, r Remote) error {
	var err error
	for attempt := 0; attempt < 6; attempt++ {
		if err = r.Call(ctx, "connect"); err == nil {
			return nil
		}
		lib.Pause(attempt)
	}
	return err
}

// ok: retrycancel
func ConnectOK(ctx context.Context, r Remote) error {
	var err error
	for attempt := 0; attempt < 6; attempt++ {
		if err = r.Call(ctx, "connect"); err == nil {
			return nil
		}
		if werr := lib.PauseCtx(ctx, attempt); werr != nil {
			return werr
		}
	}
	return err
}

// The error type from another package hides the cause from errors.Is.
//
// bug: foldedtimeout
func Save(ctx context.Context, r Remote) error {
	if err := r.Call(ctx, "save"); err != nil {
		return &lib.StoreError{Op: "save", Err: err}
	}
	return nil
}

// ok: foldedtimeout
func SaveOK(ctx context.Context, r Remote) error {
	if err := r.Call(ctx, "save"); err != nil {
		return &lib.WrappedError{Op: "save", Err: err}
	}
	return nil
}

// Joined through a helper of another package.
//
// ok: untrackedgo
func CallAll(ctx context.Context, r Remote, methods []string) []error {
	errs := make([]error, len(methods))
	var wg sync.WaitGroup
	for i, m := range methods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Call(ctx, m)
		}()
	}
	lib.WaitAll(&wg)
	return errs
}

// Released by a helper of another package.
//
// ok: leaseleak
func Stat(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer lib.CloseQuietly(f)
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Handed to a helper of another package that does not close it.
//
// bug: leaseleak
func Name(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	return lib.Describe(f), nil
}
