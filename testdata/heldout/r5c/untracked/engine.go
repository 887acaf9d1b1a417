package untracked

import (
	"sync"
)

// EventKind distinguishes engine events.
type EventKind int

const (
	KindApply EventKind = iota
	KindSync
)

// Event is one input to the engine.
type Event struct {
	Kind EventKind
	Key  string
	Val  []byte
}

// Journal is the engine's append-only output; it must not be written after
// Close.
type Journal interface {
	Append(key string, val []byte)
	Close() error
}

// Engine applies events in a loop; Shutdown waits for e.wg before it closes
// the journal its goroutines write to.
type Engine struct {
	wg      sync.WaitGroup
	quit    chan struct{}
	events  chan Event
	journal Journal
}

// NewEngine returns an engine writing to j.
// ok: untrackedgo
func NewEngine(j Journal) *Engine {
	return &Engine{quit: make(chan struct{}), events: make(chan Event), journal: j}
}

// Start launches the event loop under e.wg.
// ok: untrackedgo
func (e *Engine) Start() {
	e.wg.Go(e.loop)
}

// loop dispatches events until quit is closed.
// ok: untrackedgo
func (e *Engine) loop() {
	for {
		select {
		case <-e.quit:
			return
		case ev := <-e.events:
			e.dispatch(ev)
		}
	}
}

// apply writes one event.
// ok: untrackedgo
func (e *Engine) apply(ev Event) {
	e.journal.Append(ev.Key, ev.Val)
}

// fsmStep runs one state-machine step for a sync event.
// ok: untrackedgo
func (e *Engine) fsmStep(ev Event) {
	e.apply(Event{Kind: KindApply, Key: "fsm/" + ev.Key, Val: ev.Val})
}

// dispatch handles one event. Sync events start `go e.fsmStep(ev)` outside
// e.wg, so Shutdown's Wait can return while an FSM step is still running and
// appending to the journal Shutdown then closes.
// From: keybase/client#21881
// bug: untrackedgo
func (e *Engine) dispatch(ev Event) {
	switch ev.Kind {
	case KindSync:
		go e.fsmStep(ev)
	default:
		e.apply(ev)
	}
}

// dispatchTracked is the near-miss of dispatch: the FSM step is started with
// e.wg.Go (the loop goroutine holds the counter above zero), so Shutdown's
// Wait covers it.
// From: keybase/client#21881
// ok: untrackedgo
func (e *Engine) dispatchTracked(ev Event) {
	switch ev.Kind {
	case KindSync:
		e.wg.Go(func() { e.fsmStep(ev) })
	default:
		e.apply(ev)
	}
}

// Shutdown stops the loop, waits for the engine's goroutines and closes the
// journal.
// ok: untrackedgo
func (e *Engine) Shutdown() error {
	close(e.quit)
	e.wg.Wait()
	return e.journal.Close()
}
