package cancel

import (
	"context"
	"errors"
	"time"
)

func use(ctx context.Context) {}

func tests(ctx context.Context, err error, ch chan int) {
	if ctx.Err() != nil { // want `cancel test ctx=ctx err=<nil> canceled=true deadline=true`
	}
	if err := ctx.Err(); err != nil { // want `cancel test ctx=ctx err=err canceled=true deadline=true`
	}
	if errors.Is(err, context.Canceled) { // want `cancel test ctx=<nil> err=err canceled=true deadline=false`
	}
	if err == context.DeadlineExceeded || errors.Is(err, context.Canceled) { // want `cancel test ctx=<nil> err=err canceled=true deadline=true`
	}
	if ctx.Err() == context.DeadlineExceeded { // want `cancel test ctx=ctx err=<nil> canceled=false deadline=true`
	}
	if err != nil && ctx.Err() != nil { // want `cancel test ctx=ctx`
	}
	if err != nil {
	}
	if err != nil && !errors.Is(err, context.Canceled) {
	}
	if errors.Is(err, context.Canceled) || err == nil {
	}
	select {
	case <-ctx.Done(): // want `done ctx`
	case _, ok := <-ctx.Done(): // want `done ctx`
		_ = ok
	case <-ch:
	}
}

func contexts(parent context.Context) {
	bg := context.Background()
	use(bg)                            // want `detached`
	use(context.WithoutCancel(parent)) // want `detached`
	use(context.WithValue(bg, "k", 1)) // want `detached`
	use(parent)                        //
	t, cancel := context.WithTimeout(bg, time.Second)
	defer cancel()
	use(t) // want `deadline only`
	p, cancel2 := context.WithTimeout(parent, time.Second)
	defer cancel2()
	use(p)
	var mixed context.Context = bg
	mixed = parent
	use(mixed)
}

// Assignments that lead back to the variable itself end: a named result
// returned as itself, and two variables assigned from each other.
func selfReturn(ctx context.Context) (err error) {
	defer func() {
		if err != nil { // want `cancel test ctx=ctx err=err canceled=true deadline=true`
			return
		}
	}()
	err = ctx.Err()
	return err
}

func cycle(ctx context.Context, again bool) error {
	var a, b error
	a = ctx.Err()
	for again {
		b = a
		a = b
		again = false
	}
	if b != nil { // a cycle is no context error: conservative
		return b
	}
	return a
}
