package a

import (
	"context"
	"errors"
	"time"
)

type answer struct {
	v   int
	err error
}

func exchangeOnce(ctx context.Context, proto string) (int, error) { return 0, ctx.Err() }

// The delayed racer reports the end of its wait from a case body: that
// send blocks like the other once Exchange has returned.
func Exchange(ctx context.Context, delay time.Duration) (int, error) {
	protos := []string{"udp", "tcp"}
	results := make(chan answer)
	for i, proto := range protos {
		go func() {
			if i > 0 {
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					results <- answer{err: ctx.Err()} // want `sends on results from goroutines started in a loop block forever once Exchange stops receiving`
					return
				}
			}
			v, err := exchangeOnce(ctx, proto)
			results <- answer{v: v, err: err}
		}()
	}
	var errs []error
	for range protos {
		select {
		case r := <-results:
			if r.err == nil {
				return r.v, nil
			}
			errs = append(errs, r.err)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return 0, errors.Join(errs...)
}

// Near miss: a slot per racer.
func ExchangeBuffered(ctx context.Context, delay time.Duration) (int, error) {
	protos := []string{"udp", "tcp"}
	results := make(chan answer, len(protos))
	for i, proto := range protos {
		go func() {
			if i > 0 {
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					results <- answer{err: ctx.Err()}
					return
				}
			}
			v, err := exchangeOnce(ctx, proto)
			results <- answer{v: v, err: err}
		}()
	}
	var errs []error
	for range protos {
		select {
		case r := <-results:
			if r.err == nil {
				return r.v, nil
			}
			errs = append(errs, r.err)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return 0, errors.Join(errs...)
}
