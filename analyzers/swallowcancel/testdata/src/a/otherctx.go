package a

import (
	"context"
	"fmt"
	"net/http"
)

type pendingCall struct{ reply chan int }

type transport struct {
	ctx      context.Context
	requests chan *pendingCall
}

// The transport's own context ends: ctx.Err() is still nil then.
func (t *transport) request(ctx context.Context) (*int, error) {
	p := &pendingCall{reply: make(chan int, 1)}
	select {
	case t.requests <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, ctx.Err() // want `this case runs when t.ctx is done but returns ctx.Err\(\), the error of another context, which is nil while ctx lives: request then returns a nil error, as if it had succeeded`
	}
	select {
	case r := <-p.reply:
		return &r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, fmt.Errorf("transport closed: %w", t.ctx.Err())
	}
}

// A branch on the transport's end, the same.
func (t *transport) send(ctx context.Context) error {
	if t.ctx.Err() != nil {
		return context.Cause(ctx) // want `this branch runs when t.ctx is done but returns context.Cause\(ctx\), the error of another context`
	}
	return nil
}

// A context made from the one that ended has ended too.
func (t *transport) derived(ctx context.Context) error {
	cctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	select {
	case <-t.ctx.Done():
		return cctx.Err()
	case t.requests <- nil:
		return nil
	}
}

// The parent of the context that ended need not have ended: a timeout of
// the child leaves ctx.Err() nil.
func (t *transport) parent(ctx context.Context) error {
	tctx, cancel := context.WithTimeout(ctx, 1)
	defer cancel()
	select {
	case <-tctx.Done():
		return ctx.Err() // want `this case runs when tctx is done but returns ctx.Err\(\)`
	case t.requests <- nil:
		return nil
	}
}

// The request's context, asked twice, is one context.
func waitReq(r *http.Request, done chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	}
}
