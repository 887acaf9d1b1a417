package folded

import (
	"context"
	"fmt"
)

// The call runs under WithoutCancel: its error cannot be a cancellation.
//
// ok: foldedtimeout
func (c *Client) Commit(ctx context.Context, r Record) error {
	if err := c.be.Write(context.WithoutCancel(ctx), r); err != nil {
		return fmt.Errorf("commit %s: %v", r.Key, err)
	}
	return nil
}
