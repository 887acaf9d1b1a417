// Package lease holds held-out cases for the leaseleak check.
package lease

import "context"

// EventSender delivers CloudEvents to a sink.
type EventSender interface {
	Send(ctx context.Context, target string, event []byte) error
}
