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
