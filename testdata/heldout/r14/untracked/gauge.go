package untracked

import (
	"sync"
	"time"
)

// Reporter receives gauge values.
type Reporter interface {
	Gauge(name string, v float64)
}

// PollingGauge reports a value every interval.
type PollingGauge struct {
	name     string
	read     func() float64
	reporter Reporter
	interval time.Duration
	done     chan struct{}
	wg       sync.WaitGroup
}

// Start begins reporting until Stop.
//
// From: netlify/netlify-commons#342
// bug: untrackedgo
func (g *PollingGauge) Start() {
	g.done = make(chan struct{})
	go func() {
		t := time.NewTicker(g.interval)
		defer t.Stop()
		g.wg.Add(1)
		defer g.wg.Done()
		for {
			select {
			case <-g.done:
				return
			case <-t.C:
				g.reporter.Gauge(g.name, g.read())
			}
		}
	}()
}

// StartNearMiss adds to the WaitGroup before starting the goroutine.
//
// ok: untrackedgo
func (g *PollingGauge) StartNearMiss() {
	g.done = make(chan struct{})
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		t := time.NewTicker(g.interval)
		defer t.Stop()
		for {
			select {
			case <-g.done:
				return
			case <-t.C:
				g.reporter.Gauge(g.name, g.read())
			}
		}
	}()
}

// Stop ends reporting and waits for the reporting goroutine.
//
// ok: untrackedgo
func (g *PollingGauge) Stop() {
	close(g.done)
	g.wg.Wait()
}
