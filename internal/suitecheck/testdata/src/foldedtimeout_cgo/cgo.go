package foldedtimeout_cgo

// #include <errno.h>
// static int fail(void) { return EINTR; }
import "C"

import (
	"context"
	"fmt"

	"kv"
)

func Call(ctx context.Context) error {
	if rc := C.fail(); rc != 0 {
		if err := kv.Put(ctx, "k", "v"); err != nil {
			return fmt.Errorf("errno %d: %v", int(rc), err) // want `formats err with %v`
		}
	}
	return nil
}
