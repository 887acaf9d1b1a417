package deferloop

import (
	"context"
	"errors"
)

type Limiter struct{ slots chan struct{} }

var errBusy = errors.New("busy")

// Do gives the slot back only when the work succeeds.
func (l *Limiter) Do(work func() error) error {
	l.slots <- struct{}{} // want `the slot this send takes from the semaphore l.slots is not given back \(<-l.slots\) on the path through the return when err != nil, so it is lost for good`
	if err := work(); err != nil {
		return err
	}
	<-l.slots
	return nil
}

// DoDeferred gives it back on every path.
func (l *Limiter) DoDeferred(work func() error) error {
	l.slots <- struct{}{}
	defer func() { <-l.slots }()
	return work()
}

// DoCtx waits for a slot or the context; the slot taken is given back by
// the goroutine that does the work.
func (l *Limiter) DoCtx(ctx context.Context, work func()) error {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	go func() {
		defer func() { <-l.slots }()
		work()
	}()
	return nil
}

// TryDo takes a slot only if one is free.
func (l *Limiter) TryDo(work func() error) error {
	select {
	case l.slots <- struct{}{}: // want `the slot this send takes from the semaphore l.slots is not given back`
	default:
		return errBusy
	}
	if err := work(); err != nil {
		return err
	}
	<-l.slots
	return nil
}

// Notify sends an event on a channel it also drains: not a semaphore
// unless the receive drops the value (here it does not).
func Notify(events chan struct{}, handle func(struct{}) error) error {
	events <- struct{}{}
	ev := <-events
	return handle(ev)
}

// Accept takes a slot per connection and a goroutine gives it back when
// the connection ends; without a slot the connection is refused.
func (l *Limiter) Accept(ctx context.Context, accept func(context.Context) (func(), error)) (func(), error) {
	for {
		done, err := accept(ctx)
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			go func() {
				<-ctx.Done()
				<-l.slots
			}()
			return done, nil
		default:
			done()
		}
	}
}

// kick primes a local wake-up channel and waits on it in a select: a
// signal, not a semaphore, and it dies with the function anyway.
func kick(ctx context.Context, step func() bool) error {
	wake := make(chan struct{}, 1)
	wake <- struct{}{}
	for {
		select {
		case <-wake:
			if !step() {
				return nil
			}
			wake <- struct{}{}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ctxMutex is a mutex whose Lock can be abandoned: holding it means having
// sent into slot (capacity 1).
type ctxMutex struct {
	slot chan struct{}
}

// lockContext takes the slot and then reports the context's end as a
// failure: the caller never unlocks, and the mutex stays held.
func (m *ctxMutex) lockContext(ctx context.Context) error {
	select {
	case m.slot <- struct{}{}: // want `this send takes a slot of m.slot, and the return when err != nil reports a failure while holding it`
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// lockContextChecked reports success whenever it took the slot.
func (m *ctxMutex) lockContextChecked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case m.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *ctxMutex) unlock() { <-m.slot }

// tokenPool hands out tokens by receive and takes them back by send.
type tokenPool struct {
	tokens chan struct{}
}

func newTokenPool(n int) *tokenPool {
	p := &tokenPool{tokens: make(chan struct{}, n)}
	for range n {
		p.tokens <- struct{}{}
	}
	return p
}

func (p *tokenPool) get() { <-p.tokens }

func (p *tokenPool) put(valid bool) error {
	p.tokens <- struct{}{}
	if !valid {
		return errors.New("invalid token")
	}
	return nil
}

// gate is a supervisor's concurrency gate: acquire hands a slot to its
// caller, who releases it with done; drain takes every slot for a restart.
type gate struct {
	slots      chan struct{}
	restarting bool
	errBusy    error
}

// acquire yields the slot back when a restart is draining and reports the
// failure: the caller holds a slot only when it returns nil.
func (g *gate) acquire(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		if g.restarting {
			<-g.slots
			return g.errBusy
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquireKeep reports the restart while still holding the slot.
func (g *gate) acquireKeep(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}: // want `this send takes a slot of g.slots, and the return when g.restarting reports a failure while holding it`
		if g.restarting {
			return g.errBusy
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) done() { <-g.slots }

// drain takes n slots, counting each, and gives back as many as it counted
// on every way out.
func (g *gate) drain(ctx context.Context, n int, restart func() error) error {
	taken := make([]struct{}, 0, n)
	for range n {
		select {
		case g.slots <- struct{}{}:
			taken = append(taken, struct{}{})
		case <-ctx.Done():
			for range taken {
				<-g.slots
			}
			return ctx.Err()
		}
	}
	err := restart()
	for range taken {
		<-g.slots
	}
	return err
}

// drainEarly returns on a failed restart before giving the counted slots
// back.
func (g *gate) drainEarly(ctx context.Context, n int, restart func() error) error {
	taken := make([]struct{}, 0, n)
	for range n {
		select {
		case g.slots <- struct{}{}: // want `the slot this send takes from the semaphore g.slots is not given back`
			taken = append(taken, struct{}{})
		case <-ctx.Done():
			for range taken {
				<-g.slots
			}
			return ctx.Err()
		}
	}
	if err := restart(); err != nil {
		return err
	}
	for range taken {
		<-g.slots
	}
	return nil
}
