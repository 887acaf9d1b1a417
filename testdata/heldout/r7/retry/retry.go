// Package retry holds retry, poll and reconnect loops, some of which keep
// going after their context is done, and the near-misses that stop.
package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"heldoutr7/stub"
)

// ErrPermanent marks an append failure that must not be retried.
var ErrPermanent = errors.New("stream: permanent failure")

// ErrClosed is returned after the client was closed.
var ErrClosed = errors.New("stream: client closed")

// Client wraps http.Client with retries on transport errors and 5xx.
type Client struct {
	HTTP       *http.Client
	MaxRetries int
	Backoff    time.Duration
}

// Do retries with time.Sleep and never looks at the request's context.
// Once the caller's context is cancelled every attempt fails at once with
// context.Canceled, and Do sleeps through the full doubling backoff for each
// remaining attempt before giving up, holding the caller's goroutine.
// From: davesavic/clink#3
// bug: retrycancel
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.MaxRetries; attempt++ {
		resp, err := c.HTTP.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("server returned %s", resp.Status)
		}
		lastErr = err
		time.Sleep(c.Backoff << attempt)
	}
	return nil, fmt.Errorf("after %d attempts: %w", c.MaxRetries+1, lastErr)
}

// DoCtx stops as soon as the request's context is done, both after a failed
// attempt and during the backoff wait.
// ok: retrycancel
func (c *Client) DoCtx(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var lastErr error
	for attempt := 0; attempt <= c.MaxRetries; attempt++ {
		resp, err := c.HTTP.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("server returned %s", resp.Status)
		}
		lastErr = err
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if serr := stub.Sleep(ctx, c.Backoff<<attempt); serr != nil {
			return nil, serr
		}
	}
	return nil, fmt.Errorf("after %d attempts: %w", c.MaxRetries+1, lastErr)
}

// Do retries fn with a fixed delay. It passes ctx to fn but never checks it
// itself, and waits on a plain timer, so a cancelled release keeps calling
// fn (which fails instantly) and sleeping until attempts run out.
// From: lunarway/release-manager#90
// bug: retrycancel
func Do[T any](ctx context.Context, attempts int, delay time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		v, err = fn(ctx)
		if err == nil {
			return v, nil
		}
		log.Printf("try %d/%d: %v", i+1, attempts, err)
		timer := time.NewTimer(delay)
		<-timer.C
	}
	return zero, err
}

// DoCtx is Do made context aware: it returns ctx.Err() before retrying and
// while waiting.
// ok: retrycancel
func DoCtx[T any](ctx context.Context, attempts int, delay time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		v, err = fn(ctx)
		if err == nil {
			return v, nil
		}
		log.Printf("try %d/%d: %v", i+1, attempts, err)
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return zero, ctx.Err()
		}
	}
	return zero, err
}

// StreamClient appends records to a hosted stream.
type StreamClient struct {
	Send       func(ctx context.Context, recs [][]byte) error
	MinBackoff time.Duration
	MaxBackoff time.Duration
	closed     chan struct{}
}

// Append retries every non-permanent failure. The wait honours the client's
// own close channel but not the caller's context, and a context error from
// Send is not permanent, so after the caller gives up Append keeps retrying
// a request that can only fail, forever, with backoff capped at MaxBackoff.
// From: s2-streamstore/s2-sdk-go#207
// bug: retrycancel
func (c *StreamClient) Append(ctx context.Context, recs [][]byte) error {
	backoff := c.MinBackoff
	for {
		err := c.Send(ctx, recs)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrPermanent):
			return err
		}
		log.Printf("append: %v; retrying in %s", err, backoff)
		select {
		case <-c.closed:
			return ErrClosed
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, c.MaxBackoff)
	}
}

// AppendCtx checks the context after each failed send and during the wait.
// ok: retrycancel
func (c *StreamClient) AppendCtx(ctx context.Context, recs [][]byte) error {
	backoff := c.MinBackoff
	for {
		err := c.Send(ctx, recs)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrPermanent):
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		log.Printf("append: %v; retrying in %s", err, backoff)
		select {
		case <-c.closed:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, c.MaxBackoff)
	}
}

// ChainClient queries a chain node.
type ChainClient struct {
	QueryHeight func(ctx context.Context) (int64, error)
	Attempts    int
	Delay       time.Duration
}

// LatestHeight wraps the query in stub.RetryDo, which has no context, so a
// relayer that is shutting down still makes every attempt and sleeps every
// delay before its path goroutine can exit.
// From: cosmos/relayer#611
// bug: retrycancel
func (c *ChainClient) LatestHeight(ctx context.Context) (int64, error) {
	var h int64
	err := stub.RetryDo(c.Attempts, c.Delay, func() error {
		var qerr error
		h, qerr = c.QueryHeight(ctx)
		return qerr
	})
	if err != nil {
		return 0, fmt.Errorf("query latest height: %w", err)
	}
	return h, nil
}

// LatestHeightCtx uses the context-aware stub.RetryCtx, which checks
// ctx.Err() before each attempt and during each wait.
// ok: retrycancel
func (c *ChainClient) LatestHeightCtx(ctx context.Context) (int64, error) {
	var h int64
	err := stub.RetryCtx(ctx, c.Attempts, c.Delay, func(ctx context.Context) error {
		var qerr error
		h, qerr = c.QueryHeight(ctx)
		return qerr
	})
	if err != nil {
		return 0, fmt.Errorf("query latest height: %w", err)
	}
	return h, nil
}

// FlowConn keeps a websocket-like connection to a streaming endpoint.
type FlowConn struct {
	Dial       func(ctx context.Context) (net.Conn, error)
	Pump       func(ctx context.Context, conn net.Conn) error
	RetryEvery time.Duration
}

// Maintain reconnects whenever the connection drops or the dial fails.
// Nothing in the loop looks at the context: after Close cancels it, the
// dial fails immediately with "operation was canceled", is logged, and the
// goroutine sleeps and redials every RetryEvery forever.
// From: signalfx/signalfx-go#131
// bug: retrycancel
func (c *FlowConn) Maintain(ctx context.Context) {
reconnect:
	for {
		conn, err := c.Dial(ctx)
		if err != nil {
			log.Printf("signalflow: connect: %v", err)
			time.Sleep(c.RetryEvery)
			continue reconnect
		}
		err = c.Pump(ctx, conn)
		conn.Close()
		log.Printf("signalflow: connection lost: %v", err)
	}
}

// MaintainCtx returns once the context is done, checked at the top of the
// loop and during the wait between dials.
// ok: retrycancel
func (c *FlowConn) MaintainCtx(ctx context.Context) {
reconnect:
	for ctx.Err() == nil {
		conn, err := c.Dial(ctx)
		if err != nil {
			log.Printf("signalflow: connect: %v", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.RetryEvery):
			}
			continue reconnect
		}
		err = c.Pump(ctx, conn)
		conn.Close()
		log.Printf("signalflow: connection lost: %v", err)
	}
}

// State is a client connection state.
type State int

// Connection states.
const (
	StateDisconnected State = iota
	StateConnecting
	StateConnected
)

// ReconnectClient is an MQTT client that reconnects in the background.
type ReconnectClient struct {
	State func(ctx context.Context) (State, error)
	Poll  time.Duration
}

// WaitConnected polls until the client reports connected. The wait between
// polls is a bare ticker receive, so once the caller's context is done the
// state query fails at once and the loop keeps polling on every tick
// forever instead of returning.
// From: at-wat/mqtt-go#121
// bug: retrycancel
func (c *ReconnectClient) WaitConnected(ctx context.Context) error {
	t := time.NewTicker(c.Poll)
	defer t.Stop()
	for {
		st, err := c.State(ctx)
		if err != nil {
			log.Printf("mqtt: state: %v", err)
		} else if st == StateConnected {
			return nil
		}
		<-t.C
	}
}

// WaitConnectedCtx selects on the context alongside the ticker.
// ok: retrycancel
func (c *ReconnectClient) WaitConnectedCtx(ctx context.Context) error {
	t := time.NewTicker(c.Poll)
	defer t.Stop()
	for {
		st, err := c.State(ctx)
		if err != nil {
			log.Printf("mqtt: state: %v", err)
		} else if st == StateConnected {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Reconcile has no loop condition and no select, which looks unbounded,
// but every wait goes through stub.Sleep, which returns ctx.Err() once the
// context is done, and that error ends the loop.
// ok: retrycancel
func Reconcile(ctx context.Context, apply func(ctx context.Context) error, base time.Duration) error {
	for attempt := 0; ; attempt++ {
		err := apply(ctx)
		if err == nil {
			return nil
		}
		wait := min(base<<attempt, 30*time.Second)
		log.Printf("reconcile attempt %d: %v; next in %s", attempt+1, err, wait)
		if serr := stub.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("reconcile abandoned after %d attempts: %w (last error: %w)", attempt+1, serr, err)
		}
	}
}

// Resolver looks up service addresses.
type Resolver struct {
	Lookup func(ctx context.Context, name string) ([]string, error)
}

// ResolveAll retries each lookup through stub.RetryCtx; the loop over names
// looks like it ignores cancellation, but RetryCtx returns ctx.Err() once
// the context is done and that error is returned immediately.
// ok: retrycancel
func (r *Resolver) ResolveAll(ctx context.Context, names []string) (map[string][]string, error) {
	out := make(map[string][]string, len(names))
	for _, name := range names {
		err := stub.RetryCtx(ctx, 5, 200*time.Millisecond, func(ctx context.Context) error {
			addrs, err := r.Lookup(ctx, name)
			if err != nil {
				return err
			}
			out[name] = addrs
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("resolve %s: %w", name, err)
		}
	}
	return out, nil
}
