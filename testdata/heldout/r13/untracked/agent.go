package untracked

import (
	"context"
	"sync"
	"time"
)

// Updater fetches the latest configuration for the tray agent.
type Updater interface {
	CheckForUpdate(ctx context.Context) error
}

// Agent is a desktop tray agent with a periodic update check.
type Agent struct {
	updater  Updater
	interval time.Duration
	ctx      context.Context
	cancel   context.CancelFunc
	stop     chan struct{}
	wg       sync.WaitGroup
	sink     errSink
}

// NewAgent wires an agent to its updater.
// ok: untrackedgo
func NewAgent(parent context.Context, u Updater, interval time.Duration) *Agent {
	ctx, cancel := context.WithCancel(parent)
	return &Agent{updater: u, interval: interval, ctx: ctx, cancel: cancel, stop: make(chan struct{})}
}

// Start launches the periodic update check. The goroutine has no exit
// path: nothing it selects on is ever closed by Quit.
// From: goauthentik/platform#855
// bug: untrackedgo
func (a *Agent) Start() {
	ticker := time.NewTicker(a.interval)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				ctx, cancel := context.WithTimeout(a.ctx, a.interval)
				a.sink.add(a.updater.CheckForUpdate(ctx))
				cancel()
			}
		}
	}()
}

// StartNearMiss lets Quit stop the ticker goroutine and waits for it.
// ok: untrackedgo
func (a *Agent) StartNearMiss() {
	ticker := time.NewTicker(a.interval)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer ticker.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-ticker.C:
				ctx, cancel := context.WithTimeout(a.ctx, a.interval)
				a.sink.add(a.updater.CheckForUpdate(ctx))
				cancel()
			}
		}
	}()
}

// Quit signals the background work to end and waits for it.
// ok: untrackedgo
func (a *Agent) Quit() error {
	close(a.stop)
	a.cancel()
	a.wg.Wait()
	return a.sink.join()
}
