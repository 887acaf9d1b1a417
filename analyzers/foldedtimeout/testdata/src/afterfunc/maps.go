package afterfunc

import (
	"context"
	"errors"
	"sync/atomic"
)

type breaker struct {
	failures atomic.Int32
	ignored  map[error]bool
}

func newBreaker() *breaker {
	return &breaker{ignored: map[error]bool{context.Canceled: true}}
}

// call counts failures, skipping the errors it ignores by identity.
func (b *breaker) call(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	switch {
	case err == nil:
		b.failures.Store(0)
	case b.ignored[err]: // want `b.ignored\[err\] looks err up by ==: a wrapped cancellation \(fmt.Errorf with %w, most clients wrap\) is not the context.Canceled key`
	default:
		b.failures.Add(1)
	}
	return err
}

// callIs tests the keys with errors.Is.
func (b *breaker) callIs(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	for target := range b.ignored {
		if errors.Is(err, target) {
			return err
		}
	}
	if err != nil {
		b.failures.Add(1)
	}
	return err
}

var errStatus = map[error]int{errors.New("not found"): 404}

// status keys by errors that are not the context's: nothing is wrapped
// there that the map could miss for cancellation.
func status(ctx context.Context, fn func(context.Context) error) int {
	return errStatus[fn(ctx)]
}
