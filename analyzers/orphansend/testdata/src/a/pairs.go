package a

import (
	"context"
	"errors"
)

type digestResult struct {
	d   string
	err error
}

// comparePair starts two senders and receives twice in one statement:
// both sends complete.
func comparePair(ctx context.Context, a, b []byte, digest func(context.Context, []byte) (string, error)) (bool, error) {
	ch := make(chan digestResult)
	for _, x := range [][]byte{a, b} {
		go func() {
			d, err := digest(ctx, x)
			ch <- digestResult{d, err}
		}()
	}
	r1, r2 := <-ch, <-ch
	if err := errors.Join(r1.err, r2.err); err != nil {
		return false, err
	}
	return r1.d == r2.d, nil
}

// compareFirst receives the second result only when the first one
// succeeded: a failure leaves the other sender blocked.
func compareFirst(ctx context.Context, a, b []byte, digest func(context.Context, []byte) (string, error)) (bool, error) {
	ch := make(chan digestResult)
	for _, x := range [][]byte{a, b} {
		go func() {
			d, err := digest(ctx, x)
			ch <- digestResult{d, err} // want `sends on ch from goroutines started in a loop block forever once compareFirst stops receiving early`
		}()
	}
	r1 := <-ch
	if r1.err != nil {
		return false, r1.err
	}
	r2 := <-ch
	return r1.d == r2.d, r2.err
}

// compareShort receives the second result only on the right of &&, which
// does not run when the first digest is empty.
func compareShort(ctx context.Context, a, b []byte, digest func(context.Context, []byte) (string, error)) bool {
	ch := make(chan digestResult)
	for _, x := range [][]byte{a, b} {
		go func() {
			d, _ := digest(ctx, x)
			ch <- digestResult{d: d} // want `sends on ch from goroutines started in a loop block forever once compareShort stops receiving early`
		}()
	}
	same := (<-ch).d != "" && (<-ch).d != ""
	return same
}
