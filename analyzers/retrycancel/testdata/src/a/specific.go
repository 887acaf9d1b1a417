package a

import (
	"context"
	"errors"
	"time"
)

type pgError struct{ code string }

func (e *pgError) Error() string { return e.code }

// SchemaRetry retries only deadlocks: once ctx has ended Ping fails with
// the context's error, no deadlock branch is taken and the loop returns;
// only a backoff under way is slept out.
func SchemaRetry(ctx context.Context, c *Client) error {
	for attempt := range 3 {
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		var pe *pgError
		if errors.As(err, &pe) && pe.code == "40P01" && attempt < 2 {
			time.Sleep(200 * time.Millisecond) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff before it notices`
			continue
		}
		return err
	}
	return nil
}

// CountedRetry counts its rounds inside a for {}: not forever.
func CountedRetry(ctx context.Context, c *Client, retries int) error {
	var last error
	for { // want `this retry loop in CountedRetry calls c.Ping again after it fails without checking ctx: once ctx is canceled every attempt fails at once and the loop keeps trying until its attempts run out`
		if retries == 0 {
			return last
		}
		retries--
		if err := c.Ping(ctx); err != nil {
			last = err
			continue
		}
		return nil
	}
}
