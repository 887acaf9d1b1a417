package a

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"store"
)

type step struct {
	name string
	run  func(ctx context.Context) error
}

// runParallel folds the steps' failures into one message: a canceled step
// is only text in it.
func runParallel(ctx context.Context, keys []string) error {
	var (
		mu   sync.Mutex
		msgs []string
		wg   sync.WaitGroup
	)
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := store.Put(ctx, k, "v"); err != nil {
				mu.Lock()
				msgs = append(msgs, k+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(msgs) > 0 {
		return fmt.Errorf("%d puts failed: %s", len(msgs), strings.Join(msgs, "; ")) // want `fmt.Errorf builds a new error from strings.Join\(msgs, "; "\), which holds the text of err: the cancellation err may carry is lost`
	}
	return nil
}

// runParallelJoined keeps the errors.
func runParallelJoined(ctx context.Context, keys []string) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := store.Put(ctx, k, "v"); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// describeThenNew goes through a local message.
func describeThenNew(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		msg := fmt.Sprintf("put %s: %v", k, err)
		return errors.New(msg) // want `errors.New builds a new error from msg, which holds the text of err`
	}
	return nil
}

// describeBuilder goes through a strings.Builder.
func describeBuilder(ctx context.Context, keys []string) error {
	var b strings.Builder
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			fmt.Fprintf(&b, "%s: %v; ", k, err)
		}
	}
	if b.Len() > 0 {
		return errors.New(b.String()) // want `errors.New builds a new error from b.String\(\), which holds the text of err`
	}
	return nil
}

// describeWrapped keeps the message and wraps the error too.
func describeWrapped(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		msg := fmt.Sprintf("put %s: %v", k, err)
		return fmt.Errorf("%s: %w", msg, err)
	}
	return nil
}

// describeNames builds its message from names only.
func describeNames(ctx context.Context, keys []string) error {
	var failed []string
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed = append(failed, k)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("puts failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// describeDetached formats errors that cannot carry cancellation.
func describeDetached(keys []string) error {
	var msgs []string
	for _, k := range keys {
		if err := store.Put(context.Background(), k, "v"); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// ErrBootCanceled and ErrBootTimeout name the two ends of a boot.
var (
	ErrBootCanceled = errors.New("boot canceled")
	ErrBootTimeout  = errors.New("boot timeout")
)

// boot maps each end to a sentinel of its own: callers tell them apart.
func boot(ctx context.Context, ready <-chan struct{}, timeout <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ErrBootCanceled
	case <-timeout:
		return ErrBootTimeout
	case <-ready:
		return nil
	}
}
