package stop_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

func ExampleClassify() {
	// A deadline that records a cause is still a timeout.
	slow := errors.New("backend too slow")
	ctx, cancel := stop.WithTimeout(context.Background(), time.Millisecond, slow)
	defer cancel()
	<-ctx.Done()
	fmt.Println(stop.Classify(ctx, ctx.Err()))

	// A cancellation at shutdown is reported as such.
	ctx2, cancel2 := stop.WithCancel(context.Background())
	stop.Shutdown(cancel2)
	fmt.Println(stop.Classify(ctx2, ctx2.Err()))

	// An error of the work's own is a failure.
	fmt.Println(stop.Classify(context.Background(), errors.New("disk full")))
	// Output:
	// timed out
	// shut down
	// failed
}

func ExampleErr() {
	ctx, cancel := stop.WithCancel(context.Background())
	cancel(stop.ErrCallerCanceled)

	err := stop.Err(ctx)
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.Canceled), errors.Is(err, stop.ErrCallerCanceled))
	// Output:
	// context canceled: caller canceled
	// true true
}

func ExampleWrap() {
	errTimeout := errors.New("lookup timed out")
	ctx, cancel := stop.WithTimeout(context.Background(), -1, stop.ErrShutdown)
	defer cancel()

	err := stop.Wrap(ctx, errTimeout)
	fmt.Println(err)
	fmt.Println(errors.Is(err, errTimeout), errors.Is(err, stop.ErrShutdown), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// lookup timed out
	// true true true
}
