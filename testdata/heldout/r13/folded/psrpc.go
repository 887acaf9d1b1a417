package folded

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Bus publishes requests on a message bus.
type Bus interface {
	Publish(ctx context.Context, topic string, id uint64, payload []byte) error
}

// Response is a reply from a server.
type Response struct {
	Payload []byte
	Err     error
}

// RPCBusClient sends requests over a bus and waits for replies.
type RPCBusClient struct {
	bus     Bus
	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan Response
}

// register allocates a request id and its reply channel.
// ok: foldedtimeout
func (c *RPCBusClient) register() (uint64, chan Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	ch := make(chan Response, 1)
	c.pending[c.nextID] = ch
	return c.nextID, ch
}

// unregister forgets a request id.
// ok: foldedtimeout
func (c *RPCBusClient) unregister(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

// Request publishes and waits for the reply. When the caller's context
// ends it returns ErrRequestTimedOut without ctx.Err(), so a cancellation
// is reported as a timeout and neither context error is detectable.
// From: livekit/psrpc#25
// bug: foldedtimeout
func (c *RPCBusClient) Request(ctx context.Context, topic string, payload []byte) ([]byte, error) {
	id, ch := c.register()
	defer c.unregister(id)
	if err := c.bus.Publish(ctx, topic, id, payload); err != nil {
		return nil, fmt.Errorf("publish %s: %w", topic, err)
	}
	select {
	case resp := <-ch:
		return resp.Payload, resp.Err
	case <-ctx.Done():
		return nil, ErrRequestTimedOut
	}
}

// RequestNearMiss reports cancellation as itself and a deadline as a
// timeout that still wraps context.DeadlineExceeded.
// ok: foldedtimeout
func (c *RPCBusClient) RequestNearMiss(ctx context.Context, topic string, payload []byte) ([]byte, error) {
	id, ch := c.register()
	defer c.unregister(id)
	if err := c.bus.Publish(ctx, topic, id, payload); err != nil {
		return nil, fmt.Errorf("publish %s: %w", topic, err)
	}
	select {
	case resp := <-ch:
		return resp.Payload, resp.Err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %w", ErrRequestTimedOut, ctx.Err())
		}
		return nil, ctx.Err()
	}
}
