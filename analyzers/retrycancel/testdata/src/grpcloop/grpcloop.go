package grpcloop

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type Client struct{}

func (c *Client) Call(ctx context.Context) error { return nil }

// Retrying on the gRPC deadline code of the caller's context: spins.
func Call(ctx context.Context, c *Client) error {
	for {
		err := c.Call(ctx)
		if status.Code(err) == codes.DeadlineExceeded { // want `tries again when c.Call fails with the cancellation of ctx`
			continue
		}
		return err
	}
}

// Retrying Unavailable only, with an interruptible wait: clean.
func CallUnavailable(ctx context.Context, c *Client) error {
	for {
		err := c.Call(ctx)
		if status.Code(err) != codes.Unavailable {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Stopping on the canceled code: clean.
func CallStops(ctx context.Context, c *Client) error {
	for {
		err := c.Call(ctx)
		if status.Code(err) == codes.Canceled {
			return err
		}
		if err == nil {
			return nil
		}
	}
}
