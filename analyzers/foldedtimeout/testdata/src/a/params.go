package a

import (
	"context"
	"errors"
	"fmt"

	"store"
)

// annotate is the package's one place that decorates errors; put hands it
// the error of a context-bound call.
func annotate(op string, err error) error {
	return fmt.Errorf("%s: %v", op, err) // want `fmt.Errorf formats err with %v, so the cancellation it may carry is lost`
}

func put(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return annotate("put", err)
	}
	return nil
}

// describe is only given errors of work that takes no context.
func describe(op string, err error) error {
	return fmt.Errorf("%s: %v", op, err)
}

var errParse = errors.New("parse")

func parse(s string) error {
	if s == "" {
		return describe("parse", errParse)
	}
	return nil
}

// annotateTwice passes its parameter on to a helper that folds it: the
// cancellation reaches describeAll through two calls.
func annotateTwice(ctx context.Context) error {
	return relay(store.Put(ctx, "k", "v"))
}

func relay(err error) error { return describeAll(err) }

func describeAll(err error) error {
	return fmt.Errorf("all: %v", err) // want `fmt.Errorf formats err with %v`
}

// reassignedParam overwrites what the caller gave before formatting.
func reassignedParam(err error) error {
	err = errParse
	return fmt.Errorf("op: %v", err)
}

func callsReassigned(ctx context.Context) error {
	return reassignedParam(store.Put(ctx, "k", "v"))
}

type jsVM struct{}

func (jsVM) NewGoError(err error) error { return err }

// throwJS hands the error to a script engine as an exception: it is only
// panicked.
func throwJS(ctx context.Context, vm jsVM) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		panic(vm.NewGoError(fmt.Errorf("put: %v", err)))
	}
}

// wrapJS returns what the constructor makes of the fold.
func wrapJS(ctx context.Context, vm jsVM) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return vm.NewGoError(fmt.Errorf("put: %v", err)) // want `fmt.Errorf formats err with %v`
	}
	return nil
}
