package fix

import (
	"context"
	"errors"

	"store"
)

// copyAll stops on a cancellation and reports the partial copy as done.
func copyAll(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch leaves the loop for a return of a nil error, so copyAll reports success for work that was canceled`
				break
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// copyUntilDone tests the context and leaves a labelled loop.
func copyUntilDone(ctx context.Context, keys [][]string) error {
outer:
	for _, ks := range keys {
		for _, k := range ks {
			if ctx.Err() != nil { // want `when the context has ended this branch leaves the loop for a return of a nil error, so copyUntilDone reports success`
				break outer
			}
			_ = k
		}
	}
	return nil
}

// copyChecked looks at the context again after the loop.
func copyChecked(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			if errors.Is(err, context.Canceled) {
				break
			}
			return n, err
		}
		n++
	}
	if err := ctx.Err(); err != nil {
		return n, err
	}
	return n, nil
}

// firstMatch breaks out of a switch, not the loop: the test decides a case.
func firstMatch(ctx context.Context, keys []string) (string, error) {
	for _, k := range keys {
		err := store.Put(ctx, k, "v")
		switch {
		case err == nil:
			return k, nil
		default:
			if errors.Is(err, context.Canceled) {
				break
			}
		}
	}
	return "", errors.New("none")
}
