package nearmiss

import (
	"context"
	"io/fs"
	"path/filepath"
)

// Near miss for this check: the walk turns SkipAll into nil, which is a
// swallowed cancellation (swallowcancel's), not a new sentinel the caller
// sees.
func walkFiles(ctx context.Context, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		select {
		case <-ctx.Done():
			return filepath.SkipAll
		default:
		}
		return err
	})
}
