// Package nearmiss holds correct code that looks like the bugs
// foldedtimeout reports. None of it may be reported.
package nearmiss

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"store"
)

var (
	ErrTimeout = errors.New("timed out")
	ErrBusy    = errors.New("busy")
)

// timeoutError keeps the context's error reachable.
type timeoutError struct {
	op  string
	err error
}

func (e *timeoutError) Error() string { return e.op + ": " + e.err.Error() }
func (e *timeoutError) Unwrap() error { return e.err }

// multiError unwraps to all of its errors.
type multiError struct{ errs []error }

func (e *multiError) Error() string   { return fmt.Sprint(e.errs) }
func (e *multiError) Unwrap() []error { return e.errs }

// kindError matches the context's errors through Is.
type kindError struct{ err error }

func (e kindError) Error() string { return e.err.Error() }
func (e kindError) Is(target error) bool {
	return target == context.Canceled || target == context.DeadlineExceeded
}

func wrapTyped(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return &timeoutError{op: "put", err: err}
	}
	return nil
}

func wrapMulti(ctx context.Context, keys []string) error {
	var errs []error
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return &multiError{errs}
	}
	return nil
}

func wrapKind(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return kindError{err}
	}
	return nil
}

func doneBothFacts(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
	case <-ch:
		return nil
	}
}

func doneCause(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-ch:
		return nil
	}
}

func doneWrappedMessage(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("waiting for result: %w", ctx.Err())
	case <-ch:
		return nil
	}
}

func slogged(ctx context.Context) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		slog.Error("put failed", "err", fmt.Sprintf("%v", err))
		log.Printf("put failed: %s", err.Error())
	}
}

func httpError(w http.ResponseWriter, r *http.Request) {
	if err := store.Put(r.Context(), "k", "v"); err != nil {
		http.Error(w, fmt.Sprintf("put: %v", err), http.StatusInternalServerError)
		return
	}
}

func messageOnly(ctx context.Context) string {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return "put failed: " + err.Error()
	}
	return "ok"
}

func detachedTimeout(ch <-chan int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	select {
	case <-ctx.Done():
		return fmt.Errorf("no answer within a second")
	case <-ch:
		return nil
	}
}

func busyNotDone(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	default:
		return ErrBusy
	}
}

func isChecks(ctx context.Context) (retry bool) {
	err := store.Put(ctx, "k", "v")
	switch {
	case errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, context.DeadlineExceeded):
		return true
	}
	return err != nil
}

func ctxErrEquality(ctx context.Context) string {
	switch err := ctx.Err(); err {
	case context.Canceled:
		return "canceled"
	case context.DeadlineExceeded:
		return "deadline"
	}
	return ""
}

func notAContextText(err error) bool {
	return strings.Contains(err.Error(), "connection refused")
}

func joinedWithSentinel(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.Join(ErrBusy, err)
	}
	return nil
}

func formattedNonCarrier(name string) error {
	if name == "" {
		err := errors.New("empty name")
		return fmt.Errorf("validate: %v", err)
	}
	return nil
}

func errCheckedThenFormatted(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("put failed: %v", err)
	}
	return nil
}

func wrappedAndFormatted(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return fmt.Errorf("%w (details: %v)", err, err)
	}
	return nil
}

// The context's own error is wrapped with %w; the call's error is only
// detail.
func fetchToken(ctx context.Context) error {
	if err := store.Put(ctx, "token", "v"); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w (token fetch: %v)", cerr, err)
		}
		return fmt.Errorf("token fetch: %w", err)
	}
	return nil
}
