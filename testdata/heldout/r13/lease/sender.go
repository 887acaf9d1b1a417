package lease

import (
	"context"
	"fmt"
	"time"
)

// Broadcaster fans one event out to several sinks, each with its own
// delivery timeout.
type Broadcaster struct {
	sender  EventSender
	timeout time.Duration
}

// Broadcast sends to every target. The per-target timeout's cancel
// function is discarded, so each timer and context lives until it fires.
// From: knative/eventing#2719
// bug: leaseleak
func (b *Broadcaster) Broadcast(ctx context.Context, targets []string, event []byte) error {
	for _, t := range targets {
		sendCtx, _ := context.WithTimeout(ctx, b.timeout)
		if err := b.sender.Send(sendCtx, t, event); err != nil {
			return fmt.Errorf("send to %s: %w", t, err)
		}
	}
	return nil
}

// BroadcastNearMiss cancels each per-target context once the send returns.
// ok: leaseleak
func (b *Broadcaster) BroadcastNearMiss(ctx context.Context, targets []string, event []byte) error {
	for _, t := range targets {
		sendCtx, cancel := context.WithTimeout(ctx, b.timeout)
		err := b.sender.Send(sendCtx, t, event)
		cancel()
		if err != nil {
			return fmt.Errorf("send to %s: %w", t, err)
		}
	}
	return nil
}
