package folded

import (
	"context"
	"fmt"
)

// The cause is formatted with %v in the Done branch.
//
// bug: foldedtimeout
func (c *Client) AwaitCause2(ctx context.Context, ch <-chan Record) (Record, error) {
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Record{}, fmt.Errorf("await: %v", context.Cause(ctx))
	}
}
