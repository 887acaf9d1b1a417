package a

import (
	"context"
	"time"
)

type renewer interface {
	Renew(ctx context.Context, id string) error
}

// keeper owns its context: it is the keeper's lifetime.
type keeper struct {
	ctx    context.Context
	cancel context.CancelFunc
	r      renewer
	id     string
	every  time.Duration
}

// loop ends with the keeper's context, yet renews on a fresh root: a hung
// renewal is not interrupted when that context ends.
func (k *keeper) loop() {
	t := time.NewTicker(k.every)
	defer t.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case <-t.C:
		}
		_ = k.r.Renew(context.Background(), k.id) // want `context.Background\(\)`
	}
}

// Near miss: renewed under the context the loop ends with.
func (k *keeper) loopOwn() {
	t := time.NewTicker(k.every)
	defer t.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case <-t.C:
		}
		_ = k.r.Renew(k.ctx, k.id)
	}
}

// Near miss: a method that does not end with the keeper's context (its
// lifetime, not this call's) may start work of its own.
func (k *keeper) renewOnce() error {
	return k.r.Renew(context.Background(), k.id)
}
