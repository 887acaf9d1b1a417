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

// budgets derives a timeout per attempt, until one works, and defers its
// cancel: the timers pile up for as long as the attempts fail.
func budgets(ctx context.Context, try func(context.Context) error) error {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel() // want `the cancel function of context.WithTimeout is released by this deferred call, which runs only when budgets returns`
		if err := try(actx); err == nil {
			return nil
		}
	}
	return ctx.Err()
}

// threeBudgets does the same for three attempts: three timers until
// return, bounded by the count.
func threeBudgets(ctx context.Context, try func(context.Context) error) error {
	for i := 0; i < 3; i++ {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := try(actx); err == nil {
			return nil
		}
	}
	return nil
}

// fallback starts a second attempt when a timer fires: the case runs once.
func fallback(ctx context.Context, results <-chan error, start func(context.Context)) error {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			fctx, cancel := context.WithCancel(ctx)
			defer cancel()
			start(fctx)
		case err := <-results:
			if err == nil {
				return nil
			}
			if t.Stop() {
				t.Reset(0)
			}
		}
	}
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
