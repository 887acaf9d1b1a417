package orphan

import (
	"context"
	"errors"
	"time"
)

// ErrRequestTimeout is returned when no reply arrives in time.
var ErrRequestTimeout = errors.New("request timed out")

// roundTripper sends one request and waits for its reply.
type roundTripper interface {
	RoundTrip(ctx context.Context, subject string, data []byte) ([]byte, error)
}

// NatsClient is a request/reply client.
type NatsClient struct {
	rt roundTripper
}

// Request sends data to subject and waits for a reply, an error, or the
// timeout.
//
// From: enobufs/go-nats#2
// bug: orphansend
func (c *NatsClient) Request(ctx context.Context, subject string, data []byte, timeout time.Duration) ([]byte, error) {
	receivedCh := make(chan []byte)
	errCh := make(chan error, 1)
	go func() {
		reply, err := c.rt.RoundTrip(ctx, subject, data)
		if err != nil {
			errCh <- err
		}
		receivedCh <- reply
	}()
	select {
	case reply := <-receivedCh:
		return reply, nil
	case err := <-errCh:
		return nil, err
	case <-time.After(timeout):
		return nil, ErrRequestTimeout
	}
}

// RequestNearMiss returns after reporting the error and buffers the reply,
// so neither path can block once Request has gone.
//
// ok: orphansend
func (c *NatsClient) RequestNearMiss(ctx context.Context, subject string, data []byte, timeout time.Duration) ([]byte, error) {
	receivedCh := make(chan []byte, 1)
	errCh := make(chan error, 1)
	go func() {
		reply, err := c.rt.RoundTrip(ctx, subject, data)
		if err != nil {
			errCh <- err
			return
		}
		receivedCh <- reply
	}()
	select {
	case reply := <-receivedCh:
		return reply, nil
	case err := <-errCh:
		return nil, err
	case <-time.After(timeout):
		return nil, ErrRequestTimeout
	}
}
