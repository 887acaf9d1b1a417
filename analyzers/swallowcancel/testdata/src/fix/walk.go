package fix

import (
	"context"
	"io/fs"
	"path/filepath"
)

// listFiles stops the walk when ctx ends, but the walk then returns nil.
func listFiles(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return filepath.SkipAll // want `when ctx is done this returns filepath.SkipAll, which filepath.WalkDir turns into a nil error`
		default:
		}
		out = append(out, path)
		return nil
	})
	return out, err
}

// Near miss: the caller of the walk looks at the context after it.
func listFilesChecked(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		select {
		case <-ctx.Done():
			return filepath.SkipAll
		default:
		}
		out = append(out, path)
		return nil
	})
	if err == nil {
		err = ctx.Err()
	}
	return out, err
}

// Near miss: a directory skipped for a reason of its own.
func listTop(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && path != root {
			return filepath.SkipDir
		}
		out = append(out, path)
		return ctx.Err()
	})
	return out, err
}
