package a

import (
	"context"
	"errors"
)

type remover interface {
	Remove(ctx context.Context, name string) error
}

type davFS struct{ r remover }

// removeAll runs its work under Background: its error cannot carry the
// caller's cancellation (the detach is detachedctx's finding).
func (fs *davFS) removeAll(ctx context.Context, name string) error {
	if name == "" {
		return errors.New("no name")
	}
	return fs.r.Remove(context.Background(), name)
}

func (fs *davFS) removeAllCtx(ctx context.Context, name string) error {
	return fs.r.Remove(ctx, name)
}

func (fs *davFS) openFile(ctx context.Context, name string) error {
	fs.removeAll(ctx, name)
	fs.removeAllCtx(ctx, name) // want `the error of fs.removeAllCtx may carry the caller's cancellation and is dropped`
	return nil
}
