package folded

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A per-call timeout derived from the caller's context: the caller's own
// cancellation is reported as a timeout with a fresh error.
//
// bug: foldedtimeout
func (c *Client) GetWithin(ctx context.Context, key string, d time.Duration) (Record, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ch := make(chan Record, 1)
	go func() {
		r, _ := c.be.Read(ctx, key)
		ch <- r
	}()
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Record{}, fmt.Errorf("get %s: timed out after %s", key, d)
	}
}

// The text of the error is re-wrapped as a new error and sent.
//
// bug: foldedtimeout
func (c *Client) Worker(ctx context.Context, keys <-chan string, errc chan<- error) {
	for k := range keys {
		if _, err := c.be.Read(ctx, k); err != nil {
			errc <- errors.New(err.Error())
			return
		}
	}
}

// ok: foldedtimeout
func (c *Client) GetWithinOK(ctx context.Context, key string, d time.Duration) (Record, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ch := make(chan Record, 1)
	go func() {
		r, _ := c.be.Read(ctx, key)
		ch <- r
	}()
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Record{}, fmt.Errorf("get %s (limit %s): %w", key, d, ctx.Err())
	}
}

// ok: foldedtimeout
func (c *Client) WorkerOK(ctx context.Context, keys <-chan string, errc chan<- error) {
	for k := range keys {
		if _, err := c.be.Read(ctx, k); err != nil {
			errc <- fmt.Errorf("read %s: %w", k, err)
			return
		}
	}
}
