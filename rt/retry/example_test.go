package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/retry"
	"github.com/cancelcheck/cancelcheck/rt/stop"
)

func ExampleDo() {
	p := retry.Policy{MaxAttempts: 3, Initial: time.Millisecond}
	calls := 0
	err := retry.Do(context.Background(), p, func(ctx context.Context) error {
		calls++
		if calls < 3 {
			return errors.New("connection refused")
		}
		return nil
	})
	fmt.Println(calls, err)
	// Output:
	// 3 <nil>
}

func ExampleDo_canceled() {
	ctx, cancel := stop.WithCancel(context.Background())
	errUnavailable := errors.New("unavailable")
	err := retry.Do(ctx, retry.Policy{Initial: time.Hour}, func(ctx context.Context) error {
		stop.Shutdown(cancel) // shutdown starts while the first attempt runs
		return errUnavailable
	})
	// The error keeps both the attempt's failure and why the caller stopped.
	fmt.Println(err)
	fmt.Println(errors.Is(err, errUnavailable), stop.Classify(ctx, err))
	// Output:
	// retry: 1 attempt: unavailable (context canceled: shut down)
	// true shut down
}

func ExamplePolicy_Delay() {
	p := retry.Policy{Initial: 100 * time.Millisecond, Max: time.Second, Jitter: -1}
	for attempt := 1; attempt <= 5; attempt++ {
		fmt.Println(p.Delay(attempt, nil))
	}
	// Output:
	// 100ms
	// 200ms
	// 400ms
	// 800ms
	// 1s
}

func ExamplePermanent() {
	calls := 0
	err := retry.Do(context.Background(), retry.Policy{}, func(ctx context.Context) error {
		calls++
		return retry.Permanent(errors.New("invalid argument"))
	})
	fmt.Println(calls, err)
	// Output:
	// 1 invalid argument
}
