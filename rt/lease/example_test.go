package lease_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cancelcheck/cancelcheck/rt/lease"
	"github.com/cancelcheck/cancelcheck/rt/stop"
)

func ExampleLease_Transfer() {
	conn := lease.Owned(func(ctx context.Context) error {
		fmt.Println("connection closed")
		return nil
	})
	view := conn.Borrow() // for code that uses the connection

	pool := conn.Transfer() // the pool owns it now
	fmt.Println(conn.Release(context.Background()))
	fmt.Println(view.State())
	fmt.Println(pool.Release(context.Background()))
	fmt.Println(view.State())
	// Output:
	// lease: not the owner
	// held
	// connection closed
	// <nil>
	// released
}

func ExampleReaper() {
	var reaper lease.Reaper
	reachable := false
	l := reaper.Owned(func(ctx context.Context) error {
		if !reachable {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})

	// The caller is shutting down and cannot wait for the cleanup.
	ctx, cancel := stop.WithCancel(context.Background())
	stop.Shutdown(cancel)
	err := l.Release(ctx)
	fmt.Println(err)
	fmt.Println(errors.Is(err, lease.ErrPending), l.State(), reaper.Len())

	// Later, the reaper retries under a context of its own.
	reachable = true
	fmt.Println(reaper.Reap(context.Background()), l.State(), reaper.Len())
	// Output:
	// lease: cleanup pending (context canceled: shut down): context canceled (queued for the reaper)
	// true pending 1
	// <nil> released 0
}
