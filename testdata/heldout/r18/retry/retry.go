// Package retry holds retry, poll and reconnect loops.
package retry

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"sync"
	"time"
)

// ---- sortie-style agent turn loop ----

type Event struct {
	Type   string
	Result Result
}

type Result struct{ Output string }

type Session struct {
	events        chan Event
	send          func(string) error
	sendInterrupt func() error
	grace         time.Duration
}

// RunTurn sends a prompt and waits for the agent's turn/completed event.
// From: sortie-ai/sortie#845
// after the first interrupt the ctx.Done arm only does continue; the closed Done channel is ready on every iteration so the loop busy-spins until the app server finishes the turn
//
// bug: retrycancel
func (s *Session) RunTurn(ctx context.Context, prompt string) (Result, error) {
	if err := s.send(prompt); err != nil {
		return Result{}, err
	}
	interrupted := false
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return Result{}, io.ErrUnexpectedEOF
			}
			if ev.Type == "turn/completed" {
				return ev.Result, nil
			}
		case <-ctx.Done():
			if !interrupted {
				interrupted = true
				_ = s.sendInterrupt()
			}
			continue
		}
	}
}

// RunTurnNearMiss sends a prompt and waits for the agent's turn/completed event.
// From: sortie-ai/sortie#845
// the Done arm is disabled by setting its channel to nil after the interrupt, and a grace timer bounds the wait before ctx.Err() is returned
//
// ok: retrycancel
func (s *Session) RunTurnNearMiss(ctx context.Context, prompt string) (Result, error) {
	if err := s.send(prompt); err != nil {
		return Result{}, err
	}
	done := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return Result{}, io.ErrUnexpectedEOF
			}
			if ev.Type == "turn/completed" {
				return ev.Result, nil
			}
		case <-done:
			_ = s.sendInterrupt()
			done = nil
			t := time.NewTimer(s.grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			return Result{}, ctx.Err()
		}
	}
}

// ---- minio m3-style provisioning wait ----

type TenantAPI interface {
	IsReady(ctx context.Context, tenant string) (bool, error)
}

type Provisioner struct {
	api      TenantAPI
	interval time.Duration
}

// WaitTenantsReady waits until every tenant reports ready.
// From: minio/m3#259
// ctx is only checked in the outer loop; the inner poll loop keeps calling IsReady and sleeping forever once ctx is cancelled, because IsReady then always fails
//
// bug: retrycancel
func (p *Provisioner) WaitTenantsReady(ctx context.Context, tenants []string) error {
	for _, t := range tenants {
		if err := ctx.Err(); err != nil {
			return err
		}
		for {
			ready, err := p.api.IsReady(ctx, t)
			if err == nil && ready {
				break
			}
			if err != nil {
				log.Printf("tenant %s not ready: %v", t, err)
			}
			time.Sleep(p.interval)
		}
	}
	return nil
}

// WaitTenantsReadyNearMiss waits until every tenant reports ready.
// From: minio/m3#259
// the inner poll loop waits on a ticker and ctx.Done together and returns ctx.Err()
//
// ok: retrycancel
func (p *Provisioner) WaitTenantsReadyNearMiss(ctx context.Context, tenants []string) error {
	tick := time.NewTicker(p.interval)
	defer tick.Stop()
	for _, t := range tenants {
		for {
			ready, err := p.api.IsReady(ctx, t)
			if err == nil && ready {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
	}
	return nil
}

// ---- agola-style exponential backoff helper ----

type Backoff struct {
	Duration time.Duration
	Factor   float64
	Steps    int
}

type ConditionFunc func(ctx context.Context) (done bool, err error)

var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// ExponentialBackoff repeats cond with growing pauses until it reports done.
// From: agola-io/agola#66
// the pause is time.Sleep and ctx is never consulted, so after cancellation the helper keeps sleeping and re-running cond for all remaining steps
//
// bug: retrycancel
func ExponentialBackoff(ctx context.Context, b Backoff, cond ConditionFunc) error {
	d := b.Duration
	for i := 0; i < b.Steps; i++ {
		if i != 0 {
			time.Sleep(d)
			d = time.Duration(float64(d) * b.Factor)
		}
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return ErrWaitTimeout
}

// ExponentialBackoffNearMiss repeats cond with growing pauses until it reports done.
// From: agola-io/agola#66
// each pause selects on ctx.Done and returns ctx.Err()
//
// ok: retrycancel
func ExponentialBackoffNearMiss(ctx context.Context, b Backoff, cond ConditionFunc) error {
	d := b.Duration
	for i := 0; i < b.Steps; i++ {
		if i != 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			d = time.Duration(float64(d) * b.Factor)
		}
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return ErrWaitTimeout
}

// ---- go-resiliency-style retrier ----

type Retrier struct {
	backoff  []time.Duration
	classify func(error) bool
}

// RunCtx runs work until it succeeds or the backoff schedule is used up.
// From: eapache/go-resiliency#41
// the backoff pause is a plain Sleep and the loop does not check ctx, so a cancelled RunCtx keeps sleeping and calls work again with the dead context
//
// bug: retrycancel
func (r *Retrier) RunCtx(ctx context.Context, work func(ctx context.Context) error) error {
	retries := 0
	for {
		err := work(ctx)
		if err == nil || !r.classify(err) {
			return err
		}
		if retries >= len(r.backoff) {
			return err
		}
		time.Sleep(r.backoff[retries])
		retries++
	}
}

// RunCtxNearMiss runs work until it succeeds or the backoff schedule is used up.
// From: eapache/go-resiliency#41
// the pause selects on ctx.Done with a stopped timer, so cancellation ends the loop at once
//
// ok: retrycancel
func (r *Retrier) RunCtxNearMiss(ctx context.Context, work func(ctx context.Context) error) error {
	retries := 0
	for {
		err := work(ctx)
		if err == nil || !r.classify(err) {
			return err
		}
		if retries >= len(r.backoff) {
			return err
		}
		timer := time.NewTimer(r.backoff[retries])
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		retries++
	}
}

// ---- tessera-style publication awaiter ----

type Checkpoint struct {
	Size uint64
	Raw  []byte
}

type PublicationAwaiter struct {
	mu   sync.Mutex
	cond *sync.Cond
	cp   Checkpoint
}

// Helper.
//
// ok: retrycancel
func NewPublicationAwaiter() *PublicationAwaiter {
	a := &PublicationAwaiter{}
	a.cond = sync.NewCond(&a.mu)
	return a
}

// Await blocks until the published checkpoint covers idx.
// From: transparency-dev/tessera#1192
// the waiter only re-checks ctx when the poller broadcasts; if the poller never publishes, cond.Wait blocks forever after ctx is done
//
// bug: retrycancel
func (a *PublicationAwaiter) Await(ctx context.Context, idx uint64) (Checkpoint, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.cp.Size <= idx {
		if err := ctx.Err(); err != nil {
			return Checkpoint{}, err
		}
		a.cond.Wait()
	}
	return a.cp, nil
}

// AwaitNearMiss blocks until the published checkpoint covers idx.
// From: transparency-dev/tessera#1192
// context.AfterFunc broadcasts when ctx ends, so the waiter wakes and returns ctx.Err()
//
// ok: retrycancel
func (a *PublicationAwaiter) AwaitNearMiss(ctx context.Context, idx uint64) (Checkpoint, error) {
	stop := context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.cp.Size <= idx {
		if err := ctx.Err(); err != nil {
			return Checkpoint{}, err
		}
		a.cond.Wait()
	}
	return a.cp, nil
}

// ---- framed-msgpack-rpc-style reconnect ----

type ExpBackoff struct {
	Initial    time.Duration
	Max        time.Duration
	MaxElapsed time.Duration
}

// Helper.
//
// ok: retrycancel
func retryWithBackoff(op func() error, b ExpBackoff) error {
	start := time.Now()
	d := b.Initial
	for {
		err := op()
		if err == nil {
			return nil
		}
		if time.Since(start) > b.MaxElapsed {
			return err
		}
		time.Sleep(d)
		if d *= 2; d > b.Max {
			d = b.Max
		}
	}
}

// Helper.
//
// ok: retrycancel
func retryWithBackoffCtx(ctx context.Context, op func() error, b ExpBackoff) error {
	start := time.Now()
	d := b.Initial
	for {
		err := op()
		if err == nil {
			return nil
		}
		if time.Since(start) > b.MaxElapsed {
			return err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if d *= 2; d > b.Max {
			d = b.Max
		}
	}
}

type ConnectionTransport struct {
	addr string
	bo   ExpBackoff
	mu   sync.Mutex
	conn net.Conn
}

// Helper.
//
// ok: retrycancel
func (t *ConnectionTransport) dial(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.conn = c
	t.mu.Unlock()
	return nil
}

// Reconnect redials the server with exponential backoff.
// From: keybase/go-framed-msgpack-rpc#172
// the non-context backoff helper keeps redialling with the cancelled ctx (each dial fails at once) and sleeping until MaxElapsed runs out
//
// bug: retrycancel
func (t *ConnectionTransport) Reconnect(ctx context.Context) error {
	return retryWithBackoff(func() error { return t.dial(ctx) }, t.bo)
}

// ReconnectNearMiss redials the server with exponential backoff.
// From: keybase/go-framed-msgpack-rpc#172
// the context-aware backoff stops as soon as ctx is done
//
// ok: retrycancel
func (t *ConnectionTransport) ReconnectNearMiss(ctx context.Context) error {
	return retryWithBackoffCtx(ctx, func() error { return t.dial(ctx) }, t.bo)
}

// ---- suspicious but correct ----

// PollStatus polls fetch on a ticker until it reports a terminal status.
// every iteration waits on the ticker and ctx.Done together and returns ctx.Err() on cancellation
//
// ok: retrycancel
func PollStatus(ctx context.Context, every time.Duration, fetch func(context.Context) (string, error)) (string, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		st, err := fetch(ctx)
		if err == nil && (st == "done" || st == "failed") {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// SendWithRetry retries transient send errors.
// context errors are treated as permanent and returned immediately, and the pause is cancellable
//
// ok: retrycancel
func SendWithRetry(ctx context.Context, attempts int, send func(context.Context) error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = send(ctx); err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		t := time.NewTimer(time.Duration(i+1) * 100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}

type Redialer struct {
	stop chan struct{}
	wg   sync.WaitGroup
	dial func() (net.Conn, error)
	use  func(net.Conn)
}

// Run redials until Close is called; it is owned by the Redialer, not by a request.
// the loop has no context to honour; it exits on the stop channel that Close closes, including during the pause
//
// ok: retrycancel
func (r *Redialer) Run() {
	defer r.wg.Done()
	for {
		c, err := r.dial()
		if err == nil {
			r.use(c)
			_ = c.Close()
		}
		t := time.NewTimer(time.Second)
		select {
		case <-r.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Close stops Run and waits for it.
//
// ok: retrycancel
func (r *Redialer) Close() {
	close(r.stop)
	r.wg.Wait()
}
