package foldedtimeout_imports

import "context"

// A single unparenthesised import: adding one must produce a valid block.
func wait(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ErrStopped // want `replaces ctx's end with a new sentinel`
	case <-ch:
		return nil
	}
}
