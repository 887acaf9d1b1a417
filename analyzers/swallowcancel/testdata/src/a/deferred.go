package a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"store"
)

// ---- deferred functions that clear or overwrite the named error ----

// The deferred Close replaces the error the loop returned.
func exportAll(ctx context.Context, ks []string, w io.WriteCloser) (err error) {
	defer func() {
		err = w.Close() // want `this deferred function overwrites err with w.Close\(\) after exportAll has returned`
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
	}
	return nil
}

// Near-miss: Close's error is kept only when nothing failed before.
func exportAllKeepFirst(ctx context.Context, ks []string, w io.WriteCloser) (err error) {
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
	}
	return nil
}

// Near-miss: the overwrite happens only when Close failed; the result is
// still an error.
func exportAllOnCloseError(ctx context.Context, ks []string, w io.WriteCloser) (err error) {
	defer func() {
		if cerr := w.Close(); cerr != nil {
			err = cerr
		}
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return err
		}
	}
	return nil
}

// A deferred handler turns the cancellation into success.
func migrate(ctx context.Context, ks []string) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) {
			log.Printf("migration interrupted")
			err = nil // want `this deferred function sets err to nil after migrate has returned`
		}
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return fmt.Errorf("step %s: %w", k, err)
		}
	}
	return store.Put(ctx, "version", "2")
}

// Near-miss: a specific, non-cancellation error is cleared.
func migrateMissingOK(ctx context.Context, ks []string) (err error) {
	defer func() {
		if errors.Is(err, errMissing) {
			err = nil
		}
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return err
		}
	}
	return nil
}

// Near-miss: a deferred wrap keeps the error.
func migrateWrapped(ctx context.Context, k string) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("migrate: %w", err)
		}
	}()
	return store.Put(ctx, k, "v")
}

// Near-miss: a recover handler sets an error, not success.
func migrateRecover(ctx context.Context, k string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return store.Put(ctx, k, "v")
}

// Near-miss: the function returns no cancellation (no context-bound call).
func renderAll(w io.WriteCloser, lines []string) (err error) {
	defer func() {
		err = w.Close()
	}()
	for _, l := range lines {
		if _, err = io.WriteString(w, l); err != nil {
			return err
		}
	}
	return nil
}

// The cancellation returned before the defer is registered is out of the
// deferred function's reach; the one returned after it is not.
func declareOnce(ctx context.Context, found bool) (err error) {
	if found {
		return ctx.Err()
	}
	defer func() {
		err = nil // want `this deferred function sets err to nil after declareOnce has returned`
	}()
	return store.Put(ctx, "k", "v")
}

// Near-miss: only the early return, before the defer, can carry a
// cancellation.
func declareFirst(ctx context.Context, found bool) (err error) {
	if found {
		return ctx.Err()
	}
	defer func() {
		err = nil
	}()
	return nil
}
