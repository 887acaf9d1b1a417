package deferloop

import (
	"context"
	"io"
	"os"
	"time"
)

// sizes defers each file's Close in the loop: they all stay open until
// sizes returns.
func sizes(paths []string) (int64, error) {
	var n int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return 0, err
		}
		defer f.Close() // want `the file f from os.Open is released by this deferred call, which runs only when sizes returns, not at the end of the round: each round of the loop acquires another file and none is closed before the loop is over`
		m, err := io.Copy(io.Discard, f)
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// budgets derives a timeout per attempt and defers its cancel.
func budgets(ctx context.Context, try func(context.Context) error) error {
	for i := 0; i < 3; i++ {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel() // want `the cancel function of context.WithTimeout is released by this deferred call, which runs only when budgets returns`
		if err := try(actx); err == nil {
			return nil
		}
	}
	return nil
}

// perRound releases each round's file in a literal called in place.
func perRound(paths []string) error {
	for _, p := range paths {
		err := func() error {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(io.Discard, f)
			return err
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// firstThatOpens returns after the defer: no round comes back with a file
// pending.
func firstThatOpens(paths []string, use func(io.Reader) error) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		defer f.Close()
		return use(f)
	}
	return os.ErrNotExist
}

// closedToo closes each file in the round as well (the defer is a
// safety net for the panics in between).
func closedToo(paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.Copy(io.Discard, f); err != nil {
			return err
		}
		f.Close()
	}
	return nil
}
