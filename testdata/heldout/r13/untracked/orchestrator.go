package untracked

import (
	"context"
	"sync"
	"time"
)

// Analytics records sandbox lifecycle events for billing.
type Analytics interface {
	SandboxRemoved(ctx context.Context, id string, dur time.Duration) error
}

// NodeClient talks to one orchestrator node.
type NodeClient interface {
	Delete(ctx context.Context, id string) error
	Sync(ctx context.Context) error
}

// Orchestrator schedules sandboxes onto nodes. Its own sync loops are
// tracked by wg so Shutdown can drain them.
type Orchestrator struct {
	nodes     map[string]NodeClient
	analytics Analytics
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	sink      errSink
}

// NewOrchestrator starts one tracked sync loop per node.
// ok: untrackedgo
func NewOrchestrator(parent context.Context, nodes map[string]NodeClient, a Analytics, every time.Duration) *Orchestrator {
	ctx, cancel := context.WithCancel(parent)
	o := &Orchestrator{nodes: nodes, analytics: a, ctx: ctx, cancel: cancel}
	for _, n := range nodes {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-o.ctx.Done():
					return
				case <-t.C:
					o.sink.add(n.Sync(o.ctx))
				}
			}
		}()
	}
	return o
}

// Shutdown cancels the tracked goroutines and waits for them.
// ok: untrackedgo
func (o *Orchestrator) Shutdown() error {
	o.cancel()
	o.wg.Wait()
	return o.sink.join()
}

// DeleteSandbox removes a sandbox and emits the billing event in the
// background. Unlike the sync loops, this goroutine is not added to wg, so
// Shutdown can return while it is still writing.
// From: e2b-dev/infra#3375
// bug: untrackedgo
func (o *Orchestrator) DeleteSandbox(ctx context.Context, node, id string, started time.Time) error {
	n, ok := o.nodes[node]
	if !ok {
		return errUnknownNode
	}
	if err := n.Delete(ctx, id); err != nil {
		return err
	}
	dur := time.Since(started)
	go func() {
		o.sink.add(o.analytics.SandboxRemoved(o.ctx, id, dur))
	}()
	return nil
}

// DeleteSandboxNearMiss tracks the billing goroutine like the others.
// ok: untrackedgo
func (o *Orchestrator) DeleteSandboxNearMiss(ctx context.Context, node, id string, started time.Time) error {
	n, ok := o.nodes[node]
	if !ok {
		return errUnknownNode
	}
	if err := n.Delete(ctx, id); err != nil {
		return err
	}
	dur := time.Since(started)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		o.sink.add(o.analytics.SandboxRemoved(o.ctx, id, dur))
	}()
	return nil
}
