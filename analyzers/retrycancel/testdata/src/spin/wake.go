package spin

import (
	"context"
	"log"
	"time"
)

type replica struct {
	notify   chan struct{}
	stop     chan struct{}
	interval time.Duration
	sync     func(ctx context.Context) error
}

// monitor's retry pause waits for the timer or the next notification,
// which nothing closes: once ctx is canceled it still sleeps out the pause.
func (r *replica) monitor(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		}
		if err := r.sync(ctx); err != nil {
			log.Printf("sync: %v", err)
			t := time.NewTimer(r.interval)
			select { // want `this select over a timer and r.notify, which nothing closes, ignores ctx`
			case <-t.C:
			case <-r.notify:
				t.Stop()
			}
		}
	}
}

// Near-miss: r.stop is closed at shutdown, so the pause ends with it.
func (r *replica) monitorStoppable(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		}
		if err := r.sync(ctx); err != nil {
			log.Printf("sync: %v", err)
			t := time.NewTimer(r.interval)
			select {
			case <-t.C:
			case <-r.stop:
				t.Stop()
				return
			}
		}
	}
}

func (r *replica) close() { close(r.stop) }

// Near-miss: the pause also ends with ctx.
func (r *replica) monitorDone(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		}
		if err := r.sync(ctx); err != nil {
			t := time.NewTimer(r.interval)
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

type pulser struct {
	quit chan struct{}
	beat func(ctx context.Context) error
}

// Near-miss: the case on p.quit leaves the loop: a stop signal, not a
// wake-up, even though this package never closes it.
func (p *pulser) pulse(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			if err := p.beat(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Printf("beat: %v", err)
			}
		}
	}
}
