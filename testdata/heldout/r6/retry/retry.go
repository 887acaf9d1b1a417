// Package retry holds retry / poll / reconnect loops and whether they stop
// once the context is done.
package retry

import (
	"context"
	"errors"
	"net"
	"time"
)

// Op is one attempt; it returns ctx.Err() promptly once ctx is done.
type Op func(ctx context.Context) error

// Do retries op up to attempts times with a fixed sleep. After ctx is done
// each attempt fails at once and the loop still sleeps through every
// backoff, holding the caller for attempts*backoff after cancellation.
// From: Rican7/retry#5
// bug: retrycancel
func Do(ctx context.Context, attempts int, backoff time.Duration, op Op) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = op(ctx); err == nil {
			return nil
		}
		time.Sleep(backoff)
	}
	return err
}

// DoCtx waits on ctx between attempts and stops once it is done.
// ok: retrycancel
func DoCtx(ctx context.Context, attempts int, backoff time.Duration, op Op) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = op(ctx); err == nil {
			return nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}

// Client fetches a transaction result.
type Client struct {
	Get func(ctx context.Context, id string) (string, error)
}

// WaitResult polls until a result exists. When ctx expires Get returns an
// error immediately and the loop continues without waiting: a tight
// infinite loop burning CPU.
// From: onflow/flow-go#955
// bug: retrycancel
func (c *Client) WaitResult(ctx context.Context, id string) (string, error) {
	for {
		res, err := c.Get(ctx, id)
		if err != nil {
			continue
		}
		if res != "" {
			return res, nil
		}
	}
}

// WaitResultCtx checks the context on every failed poll and paces polls.
// ok: retrycancel
func (c *Client) WaitResultCtx(ctx context.Context, id string) (string, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := c.Get(ctx, id)
		if err == nil && res != "" {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// Dialer opens connections.
type Dialer func(ctx context.Context) (net.Conn, error)

// Reconnect dials until it succeeds, waiting between failures with
// time.After only; after ctx is canceled every dial fails and the loop never
// exits, blocking shutdown.
// From: OffchainLabs/nitro#3751
// bug: retrycancel
func Reconnect(ctx context.Context, dial Dialer, wait time.Duration) net.Conn {
	for {
		conn, err := dial(ctx)
		if err == nil {
			return conn
		}
		<-time.After(wait)
	}
}

// ReconnectCtx also selects on ctx.Done while waiting.
// ok: retrycancel
func ReconnectCtx(ctx context.Context, dial Dialer, wait time.Duration) (net.Conn, error) {
	for {
		conn, err := dial(ctx)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Reaper periodically removes expired entries.
type Reaper struct {
	Sweep func()
	Every time.Duration
}

// Run uses break inside select to leave on ctx.Done; break only leaves the
// select, so after cancel the loop spins on the closed Done channel forever.
// From: MetaCubeX/mihomo#2964
// bug: retrycancel
func (r *Reaper) Run(ctx context.Context) {
	t := time.NewTicker(r.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			break
		case <-t.C:
			r.Sweep()
		}
	}
}

// RunLabeled leaves the loop through a labelled break.
// ok: retrycancel
func (r *Reaper) RunLabeled(ctx context.Context) {
	t := time.NewTicker(r.Every)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
			r.Sweep()
		}
	}
}

// Status reports whether a resource is ready.
type Status func(ctx context.Context) (bool, error)

// WaitReady treats any status error as "not ready yet". Once ctx is done the
// status call always fails and the poll continues forever.
// From: GoogleCloudPlatform/esp-v2#515
// bug: retrycancel
func WaitReady(ctx context.Context, status Status, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		ok, err := status(ctx)
		if err != nil {
			continue
		}
		if ok {
			return nil
		}
	}
	return nil
}

// WaitReadyCtx stops when the context is done.
// ok: retrycancel
func WaitReadyCtx(ctx context.Context, status Status, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		ok, err := status(ctx)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			continue
		}
		if ok {
			return nil
		}
	}
}

// isTimeout reports errors that implement Timeout() bool and return true.
// context.DeadlineExceeded is one of them.
// ok: retrycancel
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// RetryTimeouts retries network timeouts. context.DeadlineExceeded also
// reports Timeout()==true, so after the caller's deadline passes the loop
// retries forever.
// From: colega/unexpected-go#32
// bug: retrycancel
func RetryTimeouts(ctx context.Context, op Op, pause time.Duration) error {
	for {
		err := op(ctx)
		if err == nil || !isTimeout(err) {
			return err
		}
		time.Sleep(pause)
	}
}

// RetryTimeoutsCtx checks the caller's context before classifying.
// ok: retrycancel
func RetryTimeoutsCtx(ctx context.Context, op Op, pause time.Duration) error {
	for {
		err := op(ctx)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err == nil || !isTimeout(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// Forever retries without an attempt limit but the loop condition is the
// context, so it ends as soon as ctx is done.
// ok: retrycancel
func Forever(ctx context.Context, op Op) error {
	for ctx.Err() == nil {
		if err := op(ctx); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx.Err()
}

// ReleaseLease must run even when the caller is gone, so it deliberately
// retries on context.WithoutCancel(ctx), bounded by its own deadline.
// ok: retrycancel
func ReleaseLease(ctx context.Context, release Op) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	for {
		err := release(cctx)
		if err == nil {
			return nil
		}
		select {
		case <-cctx.Done():
			return errors.Join(err, cctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
