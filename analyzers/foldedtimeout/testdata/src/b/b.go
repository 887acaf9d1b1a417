package b

import (
	"context"
	"errs"
	"log"

	"store"
)

func put(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return &errs.OpError{Op: "put", Err: err} // want `OpError stores err, which may carry cancellation, in field Err but has no Unwrap method`
	}
	return nil
}

func putPositional(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return &errs.OpError{"put", err} // want `OpError stores err`
	}
	return nil
}

func fine(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errs.Wrapped{Err: err}
	}
	return nil
}

func notCarrier(err error) error {
	return &errs.OpError{Op: "parse", Err: err}
}

func logged(ctx context.Context) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		log.Print(&errs.OpError{Op: "put", Err: err})
	}
}

func doneStored(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return &errs.OpError{Op: "wait", Err: ctx.Err()} // want `OpError stores ctx.Err\(\)`
	case <-ch:
		return nil
	}
}
