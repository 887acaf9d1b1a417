package store

import (
	"context"
	"errors"
	"fmt"
)

type Store struct{ ctx context.Context }

// Wait holds its context in the receiver: its error carries cancellation.
func (s *Store) Wait() error { // want Wait:"carriesCancel"
	<-s.ctx.Done()
	return s.ctx.Err()
}

// Load takes a context (bound without a fact); its only error is ctx.Err().
func Load(ctx context.Context, key string) (string, error) { // want Load:"returnsCtxErr"
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return key, nil
}

// Flush wraps Wait with %w: still a carrier.
func (s *Store) Flush() error { // want Flush:"carriesCancel"
	if err := s.Wait(); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}

// Describe formats with %v: the identity is gone: no carriesCancel fact, and
// its errors are fresh.
func (s *Store) Describe() error { // want Describe:"freshErrors"
	err := s.Wait()
	return fmt.Errorf("describe: %v", err)
}

// Parse never reaches a context.
func Parse(s string) error { // want Parse:"freshErrors"
	if s == "" {
		return errors.New("empty")
	}
	return nil
}

// Named uses a bare return of a named result.
func (s *Store) Named() (err error) { // want Named:"carriesCancel"
	err = s.Wait()
	return
}

// Reassigned: the carrier is overwritten before the return, which gives
// only Parse's fresh error (flow's reaching definitions).
func (s *Store) Reassigned() error { // want Reassigned:"freshErrors"
	err := s.Wait()
	_ = err
	err = Parse("x")
	return err
}

// Detached passes context.Background() to a context-bound function: its
// error cannot carry a caller's cancellation, so no carriesCancel fact; it
// runs work under a root of its own.
func Detached() error { // want Detached:"makesRoot\\(context.Background\\(\\) at store.go:67 via \\)" Detached:"detaches"
	_, err := Load(context.Background(), "k")
	return err
}

// WithoutCancel detaches too.
func WithoutCancel(ctx context.Context) error { // want WithoutCancel:"detaches" WithoutCancel:"dropsCancel"
	return Flat(context.WithoutCancel(ctx))
}

func Flat(ctx context.Context) error { return ctx.Err() }

// Timed has a deadline of its own: it may time out.
func (s *Store) Timed() error { // want Timed:"carriesCancel"
	ctx, cancel := context.WithTimeout(context.Background(), 1)
	defer cancel()
	return Flat(ctx)
}

type key struct{}

func root(ctx context.Context) string {
	if v, ok := ctx.Value(key{}).(string); ok {
		return v
	}
	return "/"
}

// ReadConfig uses its context for a value only: its error cannot carry
// cancellation.
func ReadConfig(ctx context.Context, name string) (string, error) { // want ReadConfig:"noCancel" ReadConfig:"freshErrors"
	if name == "" {
		return "", errors.New("no name")
	}
	return root(ctx) + name, nil
}

// Serial passes its context on to a values-only function.
func Serial(ctx context.Context) (string, error) { // want Serial:"noCancel" Serial:"identityFree"
	v, err := ReadConfig(ctx, "serial")
	if err != nil {
		return "", fmt.Errorf("serial: %w", err)
	}
	return v, nil
}

// Stub ignores its context: it stays context-bound (it may be a placeholder).
func Stub(ctx context.Context) error { return errors.New("not implemented") } // want Stub:"freshErrors" Stub:"dropsCancel"

// Derives passes its context to context.WithTimeout: context-bound.
func Derives(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 1)
	defer cancel()
	if ctx == nil {
		return errors.New("nil")
	}
	return Flat(ctx)
}
