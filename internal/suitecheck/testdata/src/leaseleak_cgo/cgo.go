// A cgo file: fixes must land in this file, not in cgo's generated output.
package leaseleak_cgo

/*
static int answer(void) { return 42; }
*/
import "C"

import (
	"context"
	"time"
)

func work(ctx context.Context) error { return ctx.Err() }

func Answer(ctx context.Context) (int, error) {
	cctx, _ := context.WithTimeout(ctx, time.Second) // want `the cancel function of context.WithTimeout is discarded`
	if err := work(cctx); err != nil {
		return 0, err
	}
	return int(C.answer()), nil
}
