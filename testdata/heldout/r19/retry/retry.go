// Package retry holds retry, poll, reconnect and wait loops that keep going
// after their context is done.
package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// VM provisioning (Parallels-style clone)

// VMDriver talks to the hypervisor.
type VMDriver interface {
	Clone(ctx context.Context, base, name string) error
}

// ErrVMLocked is returned while the base VM is locked by another clone.
var ErrVMLocked = errors.New("parallels: base VM is locked")

// VM is an ephemeral CI virtual machine.
type VM struct {
	driver VMDriver
	base   string
	name   string
	logger *log.Logger
}

// cloneAttempts bounds how many times a clone is tried.
const cloneAttempts = 10

// isTransient reports whether a clone failure is worth retrying.
//
// ok: retrycancel
func isTransient(err error) bool {
	return errors.Is(err, ErrVMLocked)
}

// Clone clones the base VM, retrying failed attempts.
// From: cirruslabs/cirrus-cli#282
// every error is retried, including context.Canceled, so after the task is cancelled the loop keeps issuing clone calls until all ten attempts are spent
//
// bug: retrycancel
func (vm *VM) Clone(ctx context.Context) error {
	var err error
	for attempt := 1; attempt <= cloneAttempts; attempt++ {
		if err = vm.driver.Clone(ctx, vm.base, vm.name); err == nil {
			return nil
		}
		vm.logger.Printf("clone %s attempt %d failed: %v", vm.name, attempt, err)
	}
	return fmt.Errorf("clone %s: %w", vm.name, err)
}

// CloneNearMiss is Clone retrying only transient errors on a live context.
// From: cirruslabs/cirrus-cli#282
//
// ok: retrycancel
func (vm *VM) CloneNearMiss(ctx context.Context) error {
	var err error
	for attempt := 1; attempt <= cloneAttempts; attempt++ {
		if err = vm.driver.Clone(ctx, vm.base, vm.name); err == nil {
			return nil
		}
		if ctx.Err() != nil || !isTransient(err) {
			return fmt.Errorf("clone %s: %w", vm.name, err)
		}
		vm.logger.Printf("clone %s attempt %d failed: %v", vm.name, attempt, err)
	}
	return fmt.Errorf("clone %s: %w", vm.name, err)
}

// ---------------------------------------------------------------------------
// Chunk forwarder (select loop)

// Chunk is a piece of scanned data with its origin.
type Chunk struct {
	Source string
	Data   []byte
}

// Forwarder wraps raw data read by a handler into chunks.
type Forwarder struct {
	source string
}

// chunk wraps data with the forwarder's source.
//
// ok: retrycancel
func (f *Forwarder) chunk(data []byte) Chunk {
	return Chunk{Source: f.source, Data: data}
}

// forward copies handler output into out until in closes or ctx ends.
// From: trufflesecurity/trufflehog#877
// the ctx.Done arm uses break, which only leaves the select; the for loop immediately selects the closed Done channel again and spins until in is closed
//
// bug: retrycancel
func (f *Forwarder) forward(ctx context.Context, in <-chan []byte, out chan<- Chunk) {
	defer close(out)
	for {
		select {
		case data, ok := <-in:
			if !ok {
				return
			}
			select {
			case out <- f.chunk(data):
			case <-ctx.Done():
				return
			}
		case <-ctx.Done():
			break
		}
	}
}

// forwardNearMiss is forward breaking out of the labelled loop on ctx.Done.
// From: trufflesecurity/trufflehog#877
//
// ok: retrycancel
func (f *Forwarder) forwardNearMiss(ctx context.Context, in <-chan []byte, out chan<- Chunk) {
	defer close(out)
recv:
	for {
		select {
		case data, ok := <-in:
			if !ok {
				return
			}
			select {
			case out <- f.chunk(data):
			case <-ctx.Done():
				return
			}
		case <-ctx.Done():
			break recv
		}
	}
}

// ---------------------------------------------------------------------------
// Domain availability resolver (jittered backoff)

// ResolverConfig tunes the resolver's retries.
type ResolverConfig struct {
	MaxRetries     int
	InitialBackoff time.Duration
	BackoffFactor  float64
}

// CheckResult says whether a domain is available.
type CheckResult struct {
	Domain    string
	Available bool
}

// ErrRateLimited is returned by the registry when queried too fast.
var ErrRateLimited = errors.New("whois: rate limited")

// Resolver checks domain availability against a registry.
type Resolver struct {
	cfg    ResolverConfig
	lookup func(ctx context.Context, domain string) (CheckResult, error)
}

// isRetryable reports whether a lookup failure may succeed on retry.
//
// ok: retrycancel
func isRetryable(err error) bool {
	var nerr net.Error
	return errors.Is(err, ErrRateLimited) || (errors.As(err, &nerr) && nerr.Timeout() && !errors.Is(err, context.DeadlineExceeded))
}

// Check looks a domain up, retrying transient failures with jittered backoff.
// From: brandonyoungdev/tldx#67
// the jittered pause is a plain time.Sleep, so a cancelled check keeps sleeping for the whole backoff before it notices ctx is done
//
// bug: retrycancel
func (r *Resolver) Check(ctx context.Context, domain string) (CheckResult, error) {
	backoff := r.cfg.InitialBackoff
	for attempt := 0; ; attempt++ {
		res, err := r.lookup(ctx, domain)
		if err == nil {
			return res, nil
		}
		if !isRetryable(err) || attempt == r.cfg.MaxRetries {
			return CheckResult{}, fmt.Errorf("check %s: %w", domain, err)
		}
		time.Sleep(time.Duration(rand.Float64() * float64(backoff)))
		backoff = time.Duration(float64(backoff) * r.cfg.BackoffFactor)
	}
}

// CheckNearMiss is Check waiting for the backoff or the context, whichever comes first.
// From: brandonyoungdev/tldx#67
//
// ok: retrycancel
func (r *Resolver) CheckNearMiss(ctx context.Context, domain string) (CheckResult, error) {
	backoff := r.cfg.InitialBackoff
	for attempt := 0; ; attempt++ {
		res, err := r.lookup(ctx, domain)
		if err == nil {
			return res, nil
		}
		if !isRetryable(err) || attempt == r.cfg.MaxRetries {
			return CheckResult{}, fmt.Errorf("check %s: %w", domain, err)
		}
		t := time.NewTimer(time.Duration(rand.Float64() * float64(backoff)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return CheckResult{}, fmt.Errorf("check %s: %w", domain, ctx.Err())
		}
		backoff = time.Duration(float64(backoff) * r.cfg.BackoffFactor)
	}
}

// ---------------------------------------------------------------------------
// WAL replica monitor

// Replica ships WAL segments to a remote store whenever the database changes.
type Replica struct {
	name          string
	notify        chan struct{}
	retryInterval time.Duration
	sync          func(ctx context.Context) error
	logger        *log.Logger

	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// Start launches the monitor loop under ctx.
//
// ok: retrycancel
func (r *Replica) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.monitorNearMiss(ctx)
	}()
}

// Stop cancels the monitor and waits for it to exit.
//
// ok: retrycancel
func (r *Replica) Stop() {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
}

// monitor syncs the replica on every change notification, retrying after failures.
// From: benbjohnson/litestream#814
// after a failed sync the retry wait selects only on the timer and the notify channel, so at shutdown the context.Canceled sync error is followed by a full retry interval before the loop sees ctx is done
//
// bug: retrycancel
func (r *Replica) monitor(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		}
		if err := r.sync(ctx); err != nil {
			r.logger.Printf("%s: sync error: %v", r.name, err)
			t := time.NewTimer(r.retryInterval)
			select {
			case <-t.C:
			case <-r.notify:
				t.Stop()
			}
		}
	}
}

// monitorNearMiss is monitor leaving the retry wait as soon as ctx is done.
// From: benbjohnson/litestream#814
//
// ok: retrycancel
func (r *Replica) monitorNearMiss(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		}
		if err := r.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.logger.Printf("%s: sync error: %v", r.name, err)
			t := time.NewTimer(r.retryInterval)
			select {
			case <-t.C:
			case <-r.notify:
				t.Stop()
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Validator duty scheduler

// Scheduler times validator duties within a slot.
type Scheduler struct {
	genesis      time.Time
	slotDuration time.Duration
	submit       func(ctx context.Context, slot uint64) error
}

// slotStart returns when slot begins.
//
// ok: retrycancel
func (s *Scheduler) slotStart(slot uint64) time.Time {
	return s.genesis.Add(time.Duration(slot) * s.slotDuration)
}

// SubmitAggregateSelectionProof waits until two thirds into the slot and submits the aggregate.
// From: ssvlabs/ssv#2354
// the wait is a bare receive from time.After, so a duty cancelled at the start of the slot stays blocked for up to two thirds of a slot before returning
//
// bug: retrycancel
func (s *Scheduler) SubmitAggregateSelectionProof(ctx context.Context, slot uint64) error {
	target := s.slotStart(slot).Add(s.slotDuration * 2 / 3)
	if d := time.Until(target); d > 0 {
		<-time.After(d)
	}
	if err := s.submit(ctx, slot); err != nil {
		return fmt.Errorf("submit aggregate for slot %d: %w", slot, err)
	}
	return nil
}

// SubmitAggregateSelectionProofNearMiss is the same duty waiting on ctx as well as the timer.
// From: ssvlabs/ssv#2354
//
// ok: retrycancel
func (s *Scheduler) SubmitAggregateSelectionProofNearMiss(ctx context.Context, slot uint64) error {
	target := s.slotStart(slot).Add(s.slotDuration * 2 / 3)
	if d := time.Until(target); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for slot %d: %w", slot, ctx.Err())
		}
	}
	if err := s.submit(ctx, slot); err != nil {
		return fmt.Errorf("submit aggregate for slot %d: %w", slot, err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Agent websocket receiver

// MessageConn is the websocket connection to the management server.
type MessageConn interface {
	ReadMessage() ([]byte, error)
	SetReadDeadline(t time.Time) error
}

// WSReceiver reads server-to-agent messages and hands them to a processor.
type WSReceiver struct {
	conn    MessageConn
	process func(ctx context.Context, msg []byte)
	logger  *log.Logger
}

// ReceiverLoop runs the receive loop; cancel ctx to stop it.
// From: open-telemetry/opamp-go#239
// ctx is only checked between messages while ReadMessage blocks without a deadline, so after cancellation the loop keeps waiting and Stop hangs until the server sends or closes
//
// bug: retrycancel
func (r *WSReceiver) ReceiverLoop(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		msg, err := r.conn.ReadMessage()
		if err != nil {
			if ctx.Err() == nil {
				r.logger.Printf("unexpected error while receiving: %v", err)
			}
			return
		}
		r.process(ctx, msg)
	}
}

// ReceiverLoopNearMiss is ReceiverLoop unblocking the read when ctx is cancelled.
// From: open-telemetry/opamp-go#239
//
// ok: retrycancel
func (r *WSReceiver) ReceiverLoopNearMiss(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		_ = r.conn.SetReadDeadline(time.Now())
	})
	defer stop()
	for {
		if ctx.Err() != nil {
			return
		}
		msg, err := r.conn.ReadMessage()
		if err != nil {
			if ctx.Err() == nil {
				r.logger.Printf("unexpected error while receiving: %v", err)
			}
			return
		}
		r.process(ctx, msg)
	}
}
