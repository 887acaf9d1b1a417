package retry

import (
	"context"
	"log/slog"
	"time"
)

// CSREvent is one watch event for a certificate signing request.
type CSREvent struct {
	Name     string
	NodeName string
	Approved bool
}

// CSRWatch is an open watch.
type CSRWatch interface {
	ResultChan() <-chan CSREvent
	Stop()
}

// CSRClient opens watches and approves requests.
type CSRClient interface {
	WatchCSRs(ctx context.Context) (CSRWatch, error)
	Approve(ctx context.Context, name string) error
}

// CSRApprover auto-approves node CSRs.
type CSRApprover struct {
	client     CSRClient
	retryDelay time.Duration
	log        *slog.Logger
}

// handle approves a pending request.
//
// ok: retrycancel
func (a *CSRApprover) handle(ctx context.Context, ev CSREvent) {
	if ev.Approved || ev.NodeName == "" {
		return
	}
	if err := a.client.Approve(ctx, ev.Name); err != nil {
		a.log.Warn("approve failed", "csr", ev.Name, "err", err)
	}
}

// Watch approves CSRs as they arrive. If the watch cannot be opened, or the
// server closes it, Watch starts over by calling itself.
//
// From: castai/cluster-controller#140
// bug: retrycancel
func (a *CSRApprover) Watch(ctx context.Context) {
	w, err := a.client.WatchCSRs(ctx)
	if err != nil {
		a.log.Warn("opening csr watch failed, retrying", "err", err)
		<-time.After(a.retryDelay)
		a.Watch(ctx)
		return
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		a.handle(ctx, ev)
	}
	a.log.Debug("csr watch closed, starting over")
	a.Watch(ctx)
}

// WatchNearMiss starts over in a loop that ends when ctx is done, and waits
// out the retry delay against ctx.
//
// ok: retrycancel
func (a *CSRApprover) WatchNearMiss(ctx context.Context) {
	for ctx.Err() == nil {
		w, err := a.client.WatchCSRs(ctx)
		if err != nil {
			a.log.Warn("opening csr watch failed, retrying", "err", err)
			if sleepCtx(ctx, a.retryDelay) != nil {
				return
			}
			continue
		}
		for ev := range w.ResultChan() {
			a.handle(ctx, ev)
		}
		w.Stop()
		a.log.Debug("csr watch closed, starting over")
	}
}
