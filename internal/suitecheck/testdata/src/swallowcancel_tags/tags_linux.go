//go:build linux

// A file with a build constraint: the fix must keep the constraint line
// first and the file compiling on linux.
package swallowcancel_tags

import (
	"context"

	"kv"
)

func sync1(ctx context.Context, k string) (int, error) {
	_ = kv.Put(ctx, k, "v") // want `dropped`
	return 1, nil
}

func sync2(ctx context.Context, k string) error {
	kv.Put(ctx, k, "v") // want `dropped`
	return nil
}
