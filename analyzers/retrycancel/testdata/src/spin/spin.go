// Package spin holds loops whose `case <-ctx.Done():` does not leave them:
// once the context is done that receive is always ready.
package spin

import (
	"context"
	"log"
	"time"
)

type device struct{}

func (device) KeepAlive() error  { return nil }
func (device) MagicClose() error { return nil }

// Run pets a watchdog; on ctx's end it disarms the device, and then does
// it again every round, as fast as it can.
func Run(ctx context.Context, d device, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Run: once ctx is done its receive is always ready, so the select never waits again and the loop spins, running this case over and over; leave the loop here`
			if err := d.MagicClose(); err != nil {
				log.Printf("close: %v", err)
			}
		case <-t.C:
			if err := d.KeepAlive(); err != nil {
				log.Printf("keepalive: %v", err)
			}
		}
	}
}

// Forward's Done case only logs: a spin with an error to return.
func Forward(ctx context.Context, in <-chan int, out chan<- int) error {
	for {
		select {
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Forward`
			log.Print("stopping")
		case v := <-in:
			out <- v
		}
	}
}

// RunReturns leaves after the cleanup.
func RunReturns(ctx context.Context, d device, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.MagicClose()
			return
		case <-t.C:
			d.KeepAlive()
		}
	}
}

// StopListening sets the channel to nil: the case is never ready again.
func StopListening(ctx context.Context, in <-chan int) int {
	done := ctx.Done()
	n := 0
	for in != nil {
		select {
		case <-done:
			done = nil
		case _, ok := <-in:
			if !ok {
				in = nil
			}
			n++
		}
	}
	return n
}

// Rearm waits for the next context: the case blocks until one comes.
func Rearm(ctx context.Context, next <-chan context.Context, d device) {
	for {
		select {
		case <-ctx.Done():
			ctx = <-next
		case <-time.After(time.Second):
			d.KeepAlive()
		}
	}
}

// Breaks leaves the loop through its label.
func Breaks(ctx context.Context, d device) {
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-time.After(time.Second):
			d.KeepAlive()
		}
	}
	d.MagicClose()
}

// PerRound's context is made in the loop: each round has a fresh one.
func PerRound(parent context.Context, d device) {
	for {
		ctx, cancel := context.WithTimeout(parent, time.Second)
		select {
		case <-ctx.Done():
			d.KeepAlive()
		case <-parent.Done():
			cancel()
			return
		}
		cancel()
	}
}

type event struct{ done bool }

type session struct {
	events    chan event
	interrupt func() error
}

// Turn waits for its turn's last event; on ctx's end it interrupts the
// turn and goes round again, where the Done arm is ready at once: the
// loop spins until the last event happens to arrive, though another arm
// returns then.
func (s *session) Turn(ctx context.Context) error {
	interrupted := false
	for {
		select {
		case ev, ok := <-s.events:
			if !ok || ev.done {
				return nil
			}
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Turn: once ctx is done its receive is always ready, so the select never waits again`
			if !interrupted {
				interrupted = true
				_ = s.interrupt()
			}
			continue
		}
	}
}

// TurnDisarmed stops listening to Done once it has interrupted the turn:
// no spin.
func (s *session) TurnDisarmed(ctx context.Context) error {
	done := ctx.Done()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok || ev.done {
				return nil
			}
		case <-done:
			_ = s.interrupt()
			done = nil
		}
	}
}

// TurnUntil's condition ends the loop after the Done arm sets it.
func (s *session) TurnUntil(ctx context.Context) {
	stopped := false
	for !stopped {
		select {
		case <-s.events:
		case <-ctx.Done():
			_ = s.interrupt()
			stopped = true
		}
	}
}

func ctxErr(ctx context.Context) error { return context.Cause(ctx) }

// WaitReady tests the context at the top of every round: after the Done
// arm the next round returns its cause.
func WaitReady(ctx context.Context, ready <-chan struct{}) error {
	for {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
		}
	}
}

// Notify looks at ctx first in every round, in a select of its own with a
// default, and returns there once ctx is done: the empty Done arm of the
// second select only ends the wait.
func Notify(ctx context.Context, tick *time.Ticker, send func(context.Context) error) error {
	var last error
	for {
		select {
		case <-ctx.Done():
			if last == nil {
				last = ctx.Err()
			}
			return last
		default:
		}
		select {
		case <-tick.C:
			if err := send(ctx); err == nil {
				return nil
			} else {
				last = err
			}
		case <-ctx.Done():
		}
	}
}
