package untracked

import (
	"context"
	"log/slog"
	"sync"
)

// ConnStatus is a websocket connection state.
type ConnStatus int

// Websocket is one signal websocket.
type Websocket interface {
	Run(ctx context.Context, status chan<- ConnStatus) error
}

// SignalClient runs the authed and unauthed websockets.
type SignalClient struct {
	authed, unauthed Websocket
	log              *slog.Logger
	cancel           context.CancelFunc
	loops            sync.WaitGroup
	status           chan ConnStatus
}

// runSocket runs ws until ctx ends.
//
// ok: untrackedgo
func (c *SignalClient) runSocket(ctx context.Context, name string, ws Websocket, status chan<- ConnStatus) {
	if err := ws.Run(ctx, status); err != nil && ctx.Err() == nil {
		c.log.Warn("websocket stopped", "socket", name, "err", err)
	}
}

// combineStatus merges the two sockets' statuses into c.status.
//
// ok: untrackedgo
func (c *SignalClient) combineStatus(ctx context.Context, a, b <-chan ConnStatus) {
	for {
		var s ConnStatus
		select {
		case <-ctx.Done():
			return
		case s = <-a:
		case s = <-b:
		}
		select {
		case c.status <- s:
		case <-ctx.Done():
			return
		}
	}
}

// StartReceiveLoops starts both websockets and the loop that merges their
// statuses into one channel.
//
// From: mautrix/signal#588
// bug: untrackedgo
func (c *SignalClient) StartReceiveLoops(ctx context.Context) {
	ctx, c.cancel = context.WithCancel(ctx)
	authedStatus, unauthedStatus := make(chan ConnStatus), make(chan ConnStatus)
	c.loops.Add(2)
	go func() {
		defer c.loops.Done()
		c.runSocket(ctx, "authed", c.authed, authedStatus)
	}()
	go func() {
		defer c.loops.Done()
		c.runSocket(ctx, "unauthed", c.unauthed, unauthedStatus)
	}()
	go c.combineStatus(ctx, authedStatus, unauthedStatus)
}

// StartReceiveLoopsNearMiss counts the status loop in the WaitGroup too.
//
// ok: untrackedgo
func (c *SignalClient) StartReceiveLoopsNearMiss(ctx context.Context) {
	ctx, c.cancel = context.WithCancel(ctx)
	authedStatus, unauthedStatus := make(chan ConnStatus), make(chan ConnStatus)
	c.loops.Add(3)
	go func() {
		defer c.loops.Done()
		c.runSocket(ctx, "authed", c.authed, authedStatus)
	}()
	go func() {
		defer c.loops.Done()
		c.runSocket(ctx, "unauthed", c.unauthed, unauthedStatus)
	}()
	go func() {
		defer c.loops.Done()
		c.combineStatus(ctx, authedStatus, unauthedStatus)
	}()
}

// StopReceiveLoops cancels the loops and blocks until they have returned.
//
// ok: untrackedgo
func (c *SignalClient) StopReceiveLoops() {
	if c.cancel != nil {
		c.cancel()
	}
	c.loops.Wait()
}
