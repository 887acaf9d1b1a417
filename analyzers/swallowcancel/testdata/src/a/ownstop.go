package a

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

type partition struct{ id int }

func (p partition) read(ctx context.Context, out chan<- int) error { return ctx.Err() }

func drainAll(in <-chan int, consume func(int) error) error {
	for v := range in {
		if err := consume(v); err != nil {
			return err
		}
	}
	return nil
}

// ReadAll replaces ctx by its child and cancels it once consume is done:
// the Canceled filter meant for that stop also drops the caller's.
func ReadAll(ctx context.Context, parts []partition, consume func(int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range parts {
		g.Go(func() error { return p.read(gctx, rows) })
	}
	done := make(chan error, 1)
	go func() {
		done <- g.Wait()
		close(rows)
	}()
	consumeErr := drainAll(rows, consume)
	cancel()
	readErr := <-done
	if consumeErr != nil {
		return consumeErr
	}
	if readErr != nil && !errors.Is(readErr, context.Canceled) { // want `this test drops context.Canceled from readErr to stop after the function's own cancel\(\), but ctx was replaced by its child, so a cancellation by ReadAll's caller is dropped too and ReadAll returns a nil error for work it did not finish`
		return readErr
	}
	return nil
}

// ReadAllKept keeps the caller's context apart and returns its Err first.
func ReadAllKept(ctx context.Context, parts []partition, consume func(int) error) error {
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	rows := make(chan int)
	g, gctx := errgroup.WithContext(child)
	for _, p := range parts {
		g.Go(func() error { return p.read(gctx, rows) })
	}
	done := make(chan error, 1)
	go func() {
		done <- g.Wait()
		close(rows)
	}()
	consumeErr := drainAll(rows, consume)
	cancel()
	readErr := <-done
	if consumeErr != nil {
		return consumeErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if readErr != nil && !errors.Is(readErr, context.Canceled) {
		return readErr
	}
	return nil
}

// FirstMatch stops the listing itself once it found its key; the caller's
// cancellation is dropped with the stop.
func FirstMatch(ctx context.Context, list func(context.Context, func(string) bool) error) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found string
	err := list(ctx, func(k string) bool {
		found = k
		cancel()
		return false
	})
	if errors.Is(err, context.Canceled) { // want `this test drops context.Canceled from err to stop after the function's own cancel\(\), but ctx was replaced by its child`
		err = nil
	}
	return found, err
}

// FirstMatchDeferredOnly cancels only on the way out: nothing of its own
// can cancel the listing, so a Canceled is the caller's and is returned.
func FirstMatchDeferredOnly(ctx context.Context, list func(context.Context, func(string) bool) error) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found string
	if err := list(ctx, func(k string) bool { found = k; return false }); err != nil {
		return "", err
	}
	return found, nil
}
