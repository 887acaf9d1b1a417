package a

import (
	"context"
	"sync"
	"time"
)

// refresher ranges over its ticker's channel: Stop closes quit, which the
// loop never looks at, and the ticker's C is never closed.
type refresher struct {
	every time.Duration
	quit  chan struct{}
	wg    sync.WaitGroup
	n     int
}

func (r *refresher) Start() {
	go func() { // want `goroutine started by Start never ends: its loop ranges over t.C, which is never closed \(Stop does not close a ticker's channel\), so refresher.Stop cannot stop it and it keeps running after the refresher is shut down`
		t := time.NewTicker(r.every)
		defer t.Stop()
		for range t.C {
			r.n++
		}
	}()
}

// StartLoop runs a method whose loop has no way out.
func (r *refresher) StartLoop() {
	go r.spin() // want `goroutine started by StartLoop never ends: no path through it returns, so refresher.Stop cannot stop it`
}

func (r *refresher) spin() {
	for {
		time.Sleep(r.every)
		r.n++
	}
}

// StartWatching returns when Stop closes quit: Stop ends it.
func (r *refresher) StartWatching() {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(r.every)
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
				r.n++
			}
		}
	}()
}

// StartDraining ranges over a channel that can be closed: it ends, and
// its work is counted in wg nowhere else, so the field is not its business.
func (r *refresher) StartDraining(in chan int) {
	go func() {
		for v := range in {
			r.n += v
		}
	}()
}

func (r *refresher) Stop() {
	close(r.quit)
	r.wg.Wait()
}

// poller has no shutdown method: its loop is the process's, not a lie of
// a Stop that cannot reach it.
type poller struct{ n int }

func (p *poller) Start() {
	go func() {
		for range time.Tick(time.Second) {
			p.n++
		}
	}()
}

// A package-level starter has no type whose shutdown it could escape.
func startTicking(n *int) {
	go func() {
		for range time.Tick(time.Second) {
			*n++
		}
	}()
}

// A starter given a context, with no shutdown method: the context is the
// caller's handle on the goroutine's lifetime, and the loop ignores it
// (ansible/receptor's heartbeat).
type announcer struct {
	every time.Duration
	n     int
}

func (a *announcer) Start(ctx context.Context) error {
	go func() { // want `goroutine started by Start never ends: its loop ranges over t.C, which is never closed \(Stop does not close a ticker's channel\), so canceling ctx, the context Start was given, cannot stop it`
		t := time.NewTicker(a.every)
		defer t.Stop()
		for range t.C {
			a.n++
		}
	}()
	return nil
}

// A package-level starter given a context, running a loop with no way out.
func startSpinning(ctx context.Context, n *int) {
	go spinForever(n) // want `goroutine started by startSpinning never ends: no path through it returns, so canceling ctx`
}

func spinForever(n *int) {
	for {
		time.Sleep(time.Second)
		*n++
	}
}

// Near-miss: the loop returns when ctx is done.
func (a *announcer) StartWatching(ctx context.Context) error {
	go func() {
		t := time.NewTicker(a.every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.n++
			}
		}
	}()
	return nil
}

// Near-miss: a context parameter named _ is ignored on purpose by the
// signature; nothing is promised.
func (a *announcer) StartIgnoring(_ context.Context) {
	go func() {
		for range time.Tick(a.every) {
			a.n++
		}
	}()
}

// newRefresher is a constructor: the refresher's Stop claims to end what
// it starts, and cannot end a loop over the ticker's channel.
func newRefresher(every time.Duration) *refresher {
	r := &refresher{every: every, quit: make(chan struct{})}
	t := time.NewTicker(every)
	go func() { // want `goroutine started by newRefresher never ends: its loop ranges over t.C, which is never closed \(Stop does not close a ticker's channel\), so refresher.Stop cannot stop it and it keeps running after the refresher is shut down`
		for range t.C {
			r.n++
		}
	}()
	return r
}

// newWatchingRefresher's goroutine returns when Stop closes quit.
func newWatchingRefresher(every time.Duration) *refresher {
	r := &refresher{every: every, quit: make(chan struct{})}
	t := time.NewTicker(every)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
				r.n++
			}
		}
	}()
	return r
}

type gauge struct{ n int }

// newGauge returns a type with no shutdown method: nothing claims to end
// the goroutine (untracked by another rule, if at all).
func newGauge(every time.Duration) *gauge {
	g := &gauge{}
	go func() {
		for range time.Tick(every) {
			g.n++
		}
	}()
	return g
}
