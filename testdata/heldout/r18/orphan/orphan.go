// Package orphan holds goroutines whose result send may block forever.
package orphan

import (
	"context"
	"log"
	"sync"
)

// ---- go-pkg-style async sender with an optional error channel ----

type Message struct{ Body []byte }

type Sender struct {
	send       func(ctx context.Context, msgs []Message) error
	errChannel chan error
}

// NewSender builds a Sender whose error channel callers may read if they want.
//
// ok: orphansend
func NewSender(send func(context.Context, []Message) error) *Sender {
	return &Sender{send: send, errChannel: make(chan error)}
}

// Errors exposes the optional error channel.
//
// ok: orphansend
func (s *Sender) Errors() <-chan error { return s.errChannel }

// SendAsync sends msgs in the background and reports failures on Errors.
// From: useinsider/go-pkg#15
// errChannel is unbuffered and reading it is optional, so a failed send blocks the goroutine forever when the caller never listens
//
// bug: orphansend
func (s *Sender) SendAsync(ctx context.Context, msgs []Message) {
	go func() {
		if err := s.send(ctx, msgs); err != nil {
			s.errChannel <- err
		}
	}()
}

// SendAsyncNearMiss sends msgs in the background and reports failures on Errors.
// From: useinsider/go-pkg#15
// the error send is non-blocking and falls back to logging when nobody is listening
//
// ok: orphansend
func (s *Sender) SendAsyncNearMiss(ctx context.Context, msgs []Message) {
	go func() {
		if err := s.send(ctx, msgs); err != nil {
			select {
			case s.errChannel <- err:
			default:
				log.Printf("async send failed: %v", err)
			}
		}
	}()
}

// ---- kubo-style namesys resolver ----

type routingResolver struct {
	getValue func(ctx context.Context, key string) ([]byte, error)
}

// resolveOnce looks up an IPNS record with a lookup goroutine.
// From: ipfs/kubo#3345
// after sending on errc the goroutine falls through to resc <- val; resolveOnce has already returned on the error, so that second send blocks forever
//
// bug: orphansend
func (r *routingResolver) resolveOnce(ctx context.Context, name string) ([]byte, error) {
	resc := make(chan []byte)
	errc := make(chan error)
	go func() {
		val, err := r.getValue(ctx, "/ipns/"+name)
		if err != nil {
			errc <- err
		}
		resc <- val
	}()
	select {
	case v := <-resc:
		return v, nil
	case err := <-errc:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resolveOnceNearMiss looks up an IPNS record with a lookup goroutine.
// From: ipfs/kubo#3345
// the goroutine returns right after the error send and both channels have room for the one value it sends, so it never blocks even when ctx wins
//
// ok: orphansend
func (r *routingResolver) resolveOnceNearMiss(ctx context.Context, name string) ([]byte, error) {
	resc := make(chan []byte, 1)
	errc := make(chan error, 1)
	go func() {
		val, err := r.getValue(ctx, "/ipns/"+name)
		if err != nil {
			errc <- err
			return
		}
		resc <- val
	}()
	select {
	case v := <-resc:
		return v, nil
	case err := <-errc:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ---- eksctl-style cluster creation ----

type task func(ctx context.Context) error

// CreateCluster runs the creation tasks in parallel and returns the first failure.
// From: eksctl-io/eksctl#85
// taskErr is unbuffered and CreateCluster stops receiving at the first error, so every later task blocks forever on its send
//
// bug: orphansend
func CreateCluster(ctx context.Context, tasks []task) error {
	taskErr := make(chan error)
	for _, t := range tasks {
		go func() { taskErr <- t(ctx) }()
	}
	for range tasks {
		if err := <-taskErr; err != nil {
			return err
		}
	}
	return nil
}

// CreateClusterNearMiss runs the creation tasks in parallel and returns the first failure.
// From: eksctl-io/eksctl#85
// taskErr has a slot for every task, so the remaining senders complete after an early return
//
// ok: orphansend
func CreateClusterNearMiss(ctx context.Context, tasks []task) error {
	taskErr := make(chan error, len(tasks))
	for _, t := range tasks {
		go func() { taskErr <- t(ctx) }()
	}
	for range tasks {
		if err := <-taskErr; err != nil {
			return err
		}
	}
	return nil
}

// ---- promscale-style readiness probe (generic) ----

// firstOf runs probe in a goroutine and waits for it or for ctx.
// From: timescale/promscale#1614
// the result channel is unbuffered, so when ctx wins the select the probe goroutine blocks forever on its send
//
// bug: orphansend
func firstOf[T any](ctx context.Context, probe func(context.Context) (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res)
	go func() {
		v, err := probe(ctx)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// firstOfNearMiss runs probe in a goroutine and waits for it or for ctx.
// From: timescale/promscale#1614
// the result channel has capacity one, so the probe can always deliver and exit
//
// ok: orphansend
func firstOfNearMiss[T any](ctx context.Context, probe func(context.Context) (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := probe(ctx)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// ---- grpc-go-style config selector swap ----

type ConfigSelector interface{ Name() string }

type SafeConfigSelector struct {
	mu sync.RWMutex
	cs ConfigSelector
}

// UpdateConfigSelector swaps the selector once all in-flight RPCs released it.
//
// ok: orphansend
func (s *SafeConfigSelector) UpdateConfigSelector(cs ConfigSelector) {
	s.mu.Lock()
	s.cs = cs
	s.mu.Unlock()
}

// SwapWithin swaps the selector but gives up when ctx ends.
// From: grpc/grpc-go#5058
// when ctx ends first nobody receives from done, so the goroutine blocks forever on done <- struct{}{} after the swap
//
// bug: orphansend
func (s *SafeConfigSelector) SwapWithin(ctx context.Context, cs ConfigSelector) error {
	done := make(chan struct{})
	go func() {
		s.UpdateConfigSelector(cs)
		done <- struct{}{}
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SwapWithinNearMiss swaps the selector but gives up when ctx ends.
// From: grpc/grpc-go#5058
// the goroutine signals by closing done, which never blocks
//
// ok: orphansend
func (s *SafeConfigSelector) SwapWithinNearMiss(ctx context.Context, cs ConfigSelector) error {
	done := make(chan struct{})
	go func() {
		s.UpdateConfigSelector(cs)
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---- learn-go-with-tests-style racer ----

type Pinger struct {
	head func(ctx context.Context, url string) error
}

// Helper.
//
// ok: orphansend
func (p *Pinger) ping(ctx context.Context, url string) chan struct{} {
	ch := make(chan struct{})
	go func() {
		_ = p.head(ctx, url)
		ch <- struct{}{}
	}()
	return ch
}

// Helper.
//
// ok: orphansend
func (p *Pinger) pingClose(ctx context.Context, url string) chan struct{} {
	ch := make(chan struct{})
	go func() {
		_ = p.head(ctx, url)
		close(ch)
	}()
	return ch
}

// Racer returns whichever URL answers first.
// From: quii/learn-go-with-tests#188
// the loser's ping goroutine (and both on ctx.Done) blocks forever on its unbuffered send because Racer has stopped receiving
//
// bug: orphansend
func (p *Pinger) Racer(ctx context.Context, a, b string) (string, error) {
	select {
	case <-p.ping(ctx, a):
		return a, nil
	case <-p.ping(ctx, b):
		return b, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// RacerNearMiss returns whichever URL answers first.
// From: quii/learn-go-with-tests#188
// the ping goroutines signal by closing their channel, so the loser exits without a receiver
//
// ok: orphansend
func (p *Pinger) RacerNearMiss(ctx context.Context, a, b string) (string, error) {
	select {
	case <-p.pingClose(ctx, a):
		return a, nil
	case <-p.pingClose(ctx, b):
		return b, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// ---- suspicious but correct ----

// FetchBoth runs two lookups concurrently and waits for both.
// the sends are unbuffered but FetchBoth always receives both values before returning
//
// ok: orphansend
func FetchBoth(ctx context.Context, f func(context.Context, string) string, a, b string) (string, string) {
	ca := make(chan string)
	cb := make(chan string)
	go func() { ca <- f(ctx, a) }()
	go func() { cb <- f(ctx, b) }()
	return <-ca, <-cb
}

// Produce streams values to out until ctx ends.
// every send is in a select with ctx.Done, so the producer exits when the consumer's context is cancelled
//
// ok: orphansend
func Produce(ctx context.Context, vals []int) <-chan int {
	out := make(chan int)
	go func() {
		defer close(out)
		for _, v := range vals {
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Lookup runs a lookup in the background with a deadline.
// the result channel is buffered with capacity one, so the goroutine can finish even after Lookup gave up
//
// ok: orphansend
func Lookup(ctx context.Context, find func(context.Context) (string, error)) (string, error) {
	ch := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		v, err := find(ctx)
		if err != nil {
			errc <- err
			return
		}
		ch <- v
	}()
	select {
	case v := <-ch:
		return v, nil
	case err := <-errc:
		return "", err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
