// Package idfree holds functions whose errors errors.Is cannot match with
// a context's error.
package idfree

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
)

// CmdError keeps the cause but has no Unwrap.
type CmdError struct {
	Op  string
	Err error
}

func (e *CmdError) Error() string { return e.Op + ": " + e.Err.Error() }

// WrapError has Unwrap: the cause shows through.
type WrapError struct{ Err error }

func (e *WrapError) Error() string { return e.Err.Error() }
func (e *WrapError) Unwrap() error { return e.Err }

// StatusError matches only other status errors.
type StatusError struct{ code int }

func (e *StatusError) Error() string { return fmt.Sprint(e.code) }

func (e *StatusError) Is(target error) bool {
	t, ok := target.(*StatusError)
	if !ok {
		return false
	}
	return t.code == e.code
}

// AnyIs may match anything.
type AnyIs struct{ err error }

func (e *AnyIs) Error() string        { return "x" }
func (e *AnyIs) Is(target error) bool { return target == e.err }

func run(ctx context.Context) error { return ctx.Err() }

// Exec wraps every failure in a CmdError.
func Exec(ctx context.Context) error { // want Exec:"identityFree"
	if err := run(ctx); err != nil {
		return &CmdError{Op: "exec", Err: err}
	}
	return nil
}

// ExecWrapped keeps the cause visible.
func ExecWrapped(ctx context.Context) error {
	if err := run(ctx); err != nil {
		return &WrapError{Err: err}
	}
	return nil
}

// Status converts to a status error.
func Status(ctx context.Context) error { // want Status:"identityFree"
	if ctx.Err() != nil {
		return &StatusError{code: 1}
	}
	return nil
}

// Loose has an Is that may match a context's error.
func Loose(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &AnyIs{err: err}
	}
	return nil
}

type client struct{ cc grpc.ClientConnInterface }

// Get is a generated client method: its error is the call's status error.
func (c *client) Get(ctx context.Context, in string) (*string, error) { // want Get:"identityFree"
	out := new(string)
	err := c.cc.Invoke(ctx, "/svc/Get", in, out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Retry depends on Exec.
func Retry(ctx context.Context) error { // want Retry:"identityFree"
	return Exec(ctx)
}

// ZFSSet replaces every failure of run by a CmdError before returning: run's
// own error reaches the return only when it is nil.
func ZFSSet(ctx context.Context) error { // want ZFSSet:"identityFree"
	err := run(ctx)
	if err != nil {
		err = &CmdError{Op: "set", Err: err}
	}
	return err
}

// ZFSSetSome replaces only some failures: run's error can reach the return.
func ZFSSetSome(ctx context.Context, wrap bool) error {
	err := run(ctx)
	if err != nil && wrap {
		err = &CmdError{Op: "set", Err: err}
	}
	return err
}

// FilerClient is a generated client interface: its one implementation in
// the package returns the call's status errors.
type FilerClient interface {
	Get(ctx context.Context, in string) (*string, error) // want Get:"identityFree"
}

// Lookup wraps with %w what only a status error can be.
func Lookup(ctx context.Context, c FilerClient) (*string, error) { // want Lookup:"identityFree"
	resp, err := c.Get(ctx, "x")
	if err != nil {
		return nil, fmt.Errorf("lookup: %w", err)
	}
	return resp, nil
}

// Handler is implemented here only by a delegate to another Handler,
// whose errors are not known.
type Handler interface {
	Handle(ctx context.Context) error
}

type retrying struct{ next Handler }

func (r retrying) Handle(ctx context.Context) error { return r.next.Handle(ctx) }

type remover interface {
	Remove(ctx context.Context, name string) error
}

// RemoveAll takes a context but runs its one call under Background.
func RemoveAll(ctx context.Context, r remover, name string) error { // want RemoveAll:"detaches" RemoveAll:"dropsCancel"
	if name == "" {
		return fmt.Errorf("no name")
	}
	return r.Remove(context.Background(), name)
}

// RemoveAllCtx gives its call the caller's context.
func RemoveAllCtx(ctx context.Context, r remover, name string) error {
	return r.Remove(ctx, name)
}

func withClient(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn()
}

// WithClient hands its callback's error back: it may carry whatever
// context the callback closes over.
func WithClient(fn func() error) error { // want WithClient:"makesRoot\\(context.Background\\(\\) at idfree.go:167 via \\)"
	return withClient(context.Background(), fn)
}
