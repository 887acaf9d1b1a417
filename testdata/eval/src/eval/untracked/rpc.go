package untracked

import (
	"context"
	"sync"
)

type UserServer struct {
	sink Sink
	res  Resolver
}

// An RPC method that audits in the background with the call's context:
// the audit is canceled as soon as the RPC returns.
//
// bug: untrackedgo
func (s *UserServer) GetUser(ctx context.Context, id string) (string, error) {
	go s.sink.Emit(ctx, Event{Kind: "get-user", Path: id})
	addrs, err := s.res.Resolve(ctx, id)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

type Pool struct {
	sink   Sink
	jobs   chan Event
	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// A constructor of a type with Close starts its workers.
//
// ok: untrackedgo
func NewPool(ctx context.Context, sink Sink, n int) *Pool {
	ctx, cancel := context.WithCancel(ctx)
	p := &Pool{sink: sink, jobs: make(chan Event), cancel: cancel}
	for range n {
		p.wg.Add(1)
		go p.work(ctx)
	}
	return p
}

// ok: untrackedgo
func (p *Pool) work(ctx context.Context) {
	defer p.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-p.jobs:
			_ = p.sink.Emit(ctx, e)
		}
	}
}

// ok: untrackedgo
func (p *Pool) Close() error {
	p.cancel()
	p.wg.Wait()
	return nil
}
