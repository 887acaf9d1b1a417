package a

import (
	"context"
	"fmt"
	"io"

	"store"
)

// ---- carriers overwritten before they are read ----

// The error of Get is overwritten by the write's.
func archive(ctx context.Context, w io.Writer, k string) error {
	v, err := store.Get(ctx, k) // want `the error from store.Get may carry the cancellation of ctx and is overwritten before it is read, so archive goes on as if the call had succeeded`
	_, err = io.WriteString(w, v)
	if err != nil {
		return fmt.Errorf("archive %s: %w", k, err)
	}
	return nil
}

// Near-miss: read before it is overwritten.
func archiveChecked(ctx context.Context, w io.Writer, k string) error {
	v, err := store.Get(ctx, k)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, v)
	return err
}

// Near-miss: overwritten on one path only; the other reads it.
func archiveSome(ctx context.Context, w io.Writer, k string, skip bool) error {
	v, err := store.Get(ctx, k)
	if skip {
		err = nil
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, v)
	return err
}

// Near-miss: a closure reads it.
func archiveClosure(ctx context.Context, w io.Writer, k string) error {
	v, err := store.Get(ctx, k)
	report := func() error { return err }
	_, err = io.WriteString(w, v)
	if err != nil {
		return report()
	}
	return nil
}

// In a loop: the next round's assignment overwrites it.
func archiveAll(ctx context.Context, w io.Writer, ks []string) error {
	var err error
	for _, k := range ks {
		var v string
		v, err = store.Get(ctx, k) // want `the error from store.Get may carry the cancellation of ctx and is overwritten before it is read`
		_, err = io.WriteString(w, v)
	}
	return err
}
