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
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Run: once ctx is done its receive is always ready, so every round takes this case at once and the loop spins, running it over and over; leave the loop here`
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
