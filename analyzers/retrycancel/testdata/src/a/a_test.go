package a

import (
	"context"
	"time"
)

// Test files are not checked by default.
func waitInTest(ctx context.Context, c *Client) {
	for {
		if err := c.Ping(ctx); err == nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
