// Package retry holds retry, poll, reconnect and wait loops that keep going
// after their context is done.
package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"time"
)

// Reconciler brings one object to its desired state.
type Reconciler interface {
	Reconcile(ctx context.Context, id string) error
}

// Worker drains a queue of object ids and reconciles each one.
type Worker struct {
	queue     <-chan string
	rec       Reconciler
	baseDelay time.Duration
	maxDelay  time.Duration
	log       *log.Logger
}

// NewWorker builds a worker over queue.
//
// ok: retrycancel
func NewWorker(queue <-chan string, rec Reconciler, base, max time.Duration, logger *log.Logger) *Worker {
	return &Worker{queue: queue, rec: rec, baseDelay: base, maxDelay: max, log: logger}
}

// Run reconciles queued ids until ctx ends.
// From: koyeb/kreconciler#8
// the inner resync loop only waits on its timer, so once ctx is cancelled a
// failing id is retried forever and Run never returns
//
// bug: retrycancel
func (w *Worker) Run(ctx context.Context) error {
	for {
		var id string
		select {
		case <-ctx.Done():
			return ctx.Err()
		case id = <-w.queue:
		}
	resync:
		for delay := w.baseDelay; ; delay = min(delay*2, w.maxDelay) {
			err := w.rec.Reconcile(ctx, id)
			if err == nil {
				break resync
			}
			w.log.Printf("reconcile %s failed, retrying in %s: %v", id, delay, err)
			timer := time.NewTimer(delay)
			<-timer.C
		}
	}
}

// RunNearMiss reconciles queued ids until ctx ends and abandons the resync
// loop as soon as ctx is done.
// From: koyeb/kreconciler#8
//
// ok: retrycancel
func (w *Worker) RunNearMiss(ctx context.Context) error {
	for {
		var id string
		select {
		case <-ctx.Done():
			return ctx.Err()
		case id = <-w.queue:
		}
	resync:
		for delay := w.baseDelay; ; delay = min(delay*2, w.maxDelay) {
			err := w.rec.Reconcile(ctx, id)
			if err == nil {
				break resync
			}
			w.log.Printf("reconcile %s failed, retrying in %s: %v", id, delay, err)
			timer := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			case <-timer.C:
			}
		}
	}
}

var errHydrationTimeout = errors.New("actions hydration: marker not found before deadline")

// MarkerSource reports whether a run's hydration marker exists.
type MarkerSource interface {
	MarkerPresent(ctx context.Context, runID string) (bool, error)
}

// Hydrator waits for a CI run to report that its workspace is ready.
type Hydrator struct {
	markers  MarkerSource
	interval time.Duration
	timeout  time.Duration
}

// WaitHydrated polls for runID's marker until it appears or the wait
// times out.
// From: openclaw/crabbox#1351
// a cancelled ctx makes every poll fail, which is treated as "not yet", so
// the loop keeps sleeping and polling until its own deadline
//
// bug: retrycancel
func (h *Hydrator) WaitHydrated(ctx context.Context, runID string) error {
	deadline := time.Now().Add(h.timeout)
	for {
		ok, err := h.markers.MarkerPresent(ctx, runID)
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errHydrationTimeout
		}
		time.Sleep(h.interval)
	}
}

// WaitHydratedNearMiss polls for runID's marker and returns the context
// error as soon as ctx is done.
// From: openclaw/crabbox#1351
//
// ok: retrycancel
func (h *Hydrator) WaitHydratedNearMiss(ctx context.Context, runID string) error {
	deadline := time.Now().Add(h.timeout)
	for {
		ok, err := h.markers.MarkerPresent(ctx, runID)
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errHydrationTimeout
		}
		t := time.NewTimer(h.interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

var errServiceBusy = errors.New("service busy")

// SignalRequest signals a running workflow.
type SignalRequest struct {
	WorkflowID string
	Signal     string
}

// FrontendClient forwards signals to the frontend service.
type FrontendClient struct {
	signal      func(ctx context.Context, req SignalRequest) error
	maxAttempts int
}

// SignalWithRetry sends req, retrying transient failures immediately.
// From: cadence-workflow/cadence#3327
// context.DeadlineExceeded satisfies net.Error with Timeout() true, so an
// expired request context is classified as transient and retried until the
// attempts run out
//
// bug: retrycancel
func (c *FrontendClient) SignalWithRetry(ctx context.Context, req SignalRequest) error {
	var lastErr error
	for attempt := 1; attempt <= c.maxAttempts; attempt++ {
		err := c.signal(ctx, req)
		if err == nil {
			return nil
		}
		var ne net.Error
		transient := (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, errServiceBusy)
		if !transient {
			return err
		}
		lastErr = err
	}
	return fmt.Errorf("signal %s: %d attempts: %w", req.WorkflowID, c.maxAttempts, lastErr)
}

// SignalWithRetryNearMiss sends req, retrying transient failures, and treats
// context errors as final.
// From: cadence-workflow/cadence#3327
//
// ok: retrycancel
func (c *FrontendClient) SignalWithRetryNearMiss(ctx context.Context, req SignalRequest) error {
	var lastErr error
	for attempt := 1; attempt <= c.maxAttempts; attempt++ {
		err := c.signal(ctx, req)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		var ne net.Error
		transient := (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, errServiceBusy)
		if !transient {
			return err
		}
		lastErr = err
	}
	return fmt.Errorf("signal %s: %d attempts: %w", req.WorkflowID, c.maxAttempts, lastErr)
}

// ChainEvent is published by the powchain service.
type ChainEvent struct {
	Started bool
	Genesis time.Time
}

// Syncer waits for the deposit contract to report chain start.
type Syncer struct {
	events  chan ChainEvent
	genesis time.Time
	log     *log.Logger
}

// WaitForChainStart blocks until the chain-start event arrives.
// From: OffchainLabs/prysm#4050
// the break in the ctx.Done case only leaves the select, so after
// cancellation the loop spins on the closed Done channel
//
// bug: retrycancel
func (s *Syncer) WaitForChainStart(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			s.log.Print("context closed, exiting chain-start wait")
			break
		case ev := <-s.events:
			if ev.Started {
				s.genesis = ev.Genesis
				return
			}
		}
	}
}

// WaitForChainStartNearMiss blocks until the chain-start event arrives or
// ctx ends.
// From: OffchainLabs/prysm#4050
//
// ok: retrycancel
func (s *Syncer) WaitForChainStartNearMiss(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			s.log.Print("context closed, exiting chain-start wait")
			return
		case ev := <-s.events:
			if ev.Started {
				s.genesis = ev.Genesis
				return
			}
		}
	}
}

// ErrLockTaken means another owner holds the lock.
var ErrLockTaken = errors.New("lock held by another owner")

// Lock is a held lease on a key.
type Lock struct {
	Key, Owner string
}

// LockClient acquires DynamoDB-backed locks.
type LockClient struct {
	owner         string
	tryAcquire    func(ctx context.Context, key, owner string) (*Lock, error)
	refreshPeriod time.Duration
}

// AcquireLock waits until key can be locked.
// From: cirello-io/dynamolock#107
// between attempts it sleeps the whole refresh period with time.Sleep, so a
// cancelled caller keeps waiting until the sleep ends
//
// bug: retrycancel
func (c *LockClient) AcquireLock(ctx context.Context, key string) (*Lock, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := c.tryAcquire(ctx, key, c.owner)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrLockTaken) {
			return nil, err
		}
		time.Sleep(c.refreshPeriod)
	}
}

// AcquireLockNearMiss waits until key can be locked and wakes up as soon as
// ctx ends.
// From: cirello-io/dynamolock#107
//
// ok: retrycancel
func (c *LockClient) AcquireLockNearMiss(ctx context.Context, key string) (*Lock, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := c.tryAcquire(ctx, key, c.owner)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrLockTaken) {
			return nil, err
		}
		t := time.NewTimer(c.refreshPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// RelayClient keeps a subscription to a Nostr relay open.
type RelayClient struct {
	subscribe      func(ctx context.Context) error
	reconnectDelay time.Duration
	log            *log.Logger
}

// StartSubscription keeps the relay subscription alive.
// From: getAlby/nostr-wallet-connect#244
// every end of the subscription, including the one caused by cancelling
// ctx, is followed by a reconnect, so after shutdown it reconnects forever
//
// bug: retrycancel
func (r *RelayClient) StartSubscription(ctx context.Context) error {
	for {
		err := r.subscribe(ctx)
		r.log.Printf("relay subscription ended: %v; reconnecting in %s", err, r.reconnectDelay)
		t := time.NewTimer(r.reconnectDelay)
		<-t.C
	}
}

// StartSubscriptionNearMiss keeps the relay subscription alive and stops
// reconnecting once ctx is cancelled.
// From: getAlby/nostr-wallet-connect#244
//
// ok: retrycancel
func (r *RelayClient) StartSubscriptionNearMiss(ctx context.Context) error {
	for {
		err := r.subscribe(ctx)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		r.log.Printf("relay subscription ended: %v; reconnecting in %s", err, r.reconnectDelay)
		t := time.NewTimer(r.reconnectDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
