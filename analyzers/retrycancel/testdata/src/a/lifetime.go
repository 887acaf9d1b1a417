package a

import (
	"context"
	"errors"
	"log"
	"time"
)

var errClosed = errors.New("closed")

type streamClient struct {
	send    func(ctx context.Context, recs []string) error
	backoff time.Duration
	closed  chan struct{}
	ctx     context.Context
}

// Close ends the client: its close channel is closed.
func (c *streamClient) Close() { close(c.closed) }

// appendRecs waits on the client's own close channel between attempts but
// runs them under the caller's ctx: once ctx is canceled every send fails
// at once and the loop retries until the client is closed.
func (c *streamClient) appendRecs(ctx context.Context, recs []string) error {
	for { // want `this retry loop in appendRecs calls c.send again after it fails without checking ctx: once ctx is canceled every attempt fails at once and the loop keeps trying until c.closed is closed`
		err := c.send(ctx, recs)
		if err == nil {
			return nil
		}
		log.Printf("append: %v", err)
		select {
		case <-c.closed:
			return errClosed
		case <-time.After(c.backoff):
		}
	}
}

// appendRecsCtx waits on both.
func (c *streamClient) appendRecsCtx(ctx context.Context, recs []string) error {
	for {
		err := c.send(ctx, recs)
		if err == nil {
			return nil
		}
		select {
		case <-c.closed:
			return errClosed
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(c.backoff):
		}
	}
}

// appendLifetime runs its attempts under the client's own context, which
// ends when the client closes: the close channel is the same lifetime.
func (c *streamClient) appendLifetime(recs []string) error {
	for {
		err := c.send(c.ctx, recs)
		if err == nil {
			return nil
		}
		select {
		case <-c.closed:
			return errClosed
		case <-time.After(c.backoff):
		}
	}
}

// appendDone leaves on a Done channel kept in a field.
type doneHolder struct {
	done <-chan struct{}
}

func (c *streamClient) appendLocalDone(ctx context.Context, recs []string) error {
	done := ctx.Done()
	for {
		err := c.send(ctx, recs)
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return ctx.Err()
		case <-time.After(c.backoff):
		}
	}
}

type tracker struct {
	pending map[string]bool
}

// waitPublished polls until its own timeout: bounded, but blind to ctx
// until then.
func (t *tracker) waitPublished(ctx context.Context, id string) error {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case <-timeout:
			return errors.New("not published in time")
		default:
			if t.pending[id] {
				return nil
			}
			time.Sleep(50 * time.Millisecond) // want `time.Sleep ignores ctx and the loop never checks it: once ctx is canceled this retry loop keeps sleeping and trying again until timeout fires`
		}
	}
}
