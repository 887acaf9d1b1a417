//go:build !linux

package swallowcancel_tags

import (
	"context"

	"kv"
)

// Not compiled on linux: not analyzed, not rewritten.
func sync1(ctx context.Context, k string) (int, error) {
	_ = kv.Put(ctx, k, "v")
	return 1, nil
}

func sync2(ctx context.Context, k string) error {
	kv.Put(ctx, k, "v")
	return nil
}
