//go:build linux && !appengine

package leaseleak_tags

import (
	"context"
	"time"
)

func work(ctx context.Context) error { return ctx.Err() }

func discarded(ctx context.Context) error {
	cctx, _ := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is discarded`
	return work(cctx)
}

func bounded(ctx context.Context) error {
	ctx, _ = context.WithTimeout(ctx, time.Second) // want `the cancel function of context.WithTimeout is discarded`
	return work(ctx)
}
