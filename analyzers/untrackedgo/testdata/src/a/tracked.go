package a

import (
	"sync"
	"time"
)

// Server counts its goroutines in wg, and Close waits for them.
type Server struct {
	quit chan struct{}
	wg   sync.WaitGroup
	hits int
}

func (s *Server) accept() {
	defer s.wg.Done()
	<-s.quit
}

func (s *Server) flush() { s.hits = 0 }

// Start counts the acceptor but not the flusher.
func (s *Server) Start() {
	s.wg.Add(1)
	go s.accept()
	go s.flush() // want `goroutine started by Start is not counted in wg, which the type's other goroutines are counted in and its shutdown waits on: the Wait returns while this one still runs`
}

// StartLater starts a goroutine that counts itself.
func (s *Server) StartLater() {
	go func() {
		defer s.wg.Done()
		time.Sleep(time.Millisecond)
	}()
}

// StartCounted counts what it starts.
func (s *Server) StartCounted() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.flush()
	}()
}

// StartWatching runs until quit is closed, but Close does not wait for
// it: after Close returns it may still be flushing, work that
// StartCounted counts in wg.
func (s *Server) StartWatching() {
	go func() { // want `goroutine started by StartWatching is not counted in wg, which the type's other goroutines are counted in and its shutdown waits on: it runs flush, which the goroutines counted there run too, and the Wait can return while this one is still in it`
		for {
			select {
			case <-s.quit:
				return
			case <-time.After(time.Second):
				s.flush()
			}
		}
	}()
}

func (s *Server) Close() {
	close(s.quit)
	s.wg.Wait()
}

// Pool has a WaitGroup it never waits on: nothing to escape.
type Pool struct {
	wg sync.WaitGroup
}

func (p *Pool) work() {}

func (p *Pool) Start() {
	p.wg.Add(1)
	go p.work()
}

// Client counts its socket loops in loops; Stop cancels them and waits.
type Client struct {
	cancel func()
	loops  sync.WaitGroup
	status chan int
	done   chan struct{}
}

func (c *Client) socket(stop <-chan struct{}, out chan<- int) {
	defer c.loops.Done()
	select {
	case <-stop:
	case out <- 1:
	}
}

// combine merges statuses until stop is closed, reporting on c.status.
func (c *Client) combine(stop <-chan struct{}, in <-chan int) {
	for {
		select {
		case <-stop:
			return
		case s := <-in:
			select {
			case c.status <- s:
			case <-stop:
				return
			}
		}
	}
}

func (c *Client) Stop() {
	c.cancel()
	c.loops.Wait()
}

// Run counts two of its loops and leaves the third out: its reports on
// c.status make Stop wait for nothing, and Stop's Wait returns while it
// still runs.
func (c *Client) Run(stop chan struct{}) {
	in := make(chan int)
	c.loops.Add(2)
	go c.socket(stop, in)
	go c.socket(stop, in)
	go c.combine(stop, in) // want `goroutine started by Run is not counted in loops, which the type's other goroutines are counted in and its shutdown waits on`
}

// RunAll counts all three.
func (c *Client) RunAll(stop chan struct{}) {
	in := make(chan int)
	c.loops.Add(3)
	go c.socket(stop, in)
	go c.socket(stop, in)
	go func() {
		defer c.loops.Done()
		c.combine(stop, in)
	}()
}

// RunWatcher counts nothing itself: its loop ends when stop closes, but
// Stop's Wait does not cover it, though RunAll counts the same loop.
func (c *Client) RunWatcher(stop chan struct{}, in chan int) {
	go c.combine(stop, in) // want `goroutine started by RunWatcher is not counted in loops, which the type's other goroutines are counted in and its shutdown waits on: it runs combine, which the goroutines counted there run too`
}

// WatchClose closes the listener once quit is closed: a hook that acts
// once on the signal, part of the shutdown itself, not work its Wait must
// cover.
func (s *Server) WatchClose(ln interface{ Close() error }) {
	go func() {
		<-s.quit
		_ = ln.Close()
	}()
}

// Flusher counts its workers in wg and its flusher by a report on
// flushed, which Close receives.
type Flusher struct {
	wg      sync.WaitGroup
	flushed chan struct{}
	n       int
}

func (f *Flusher) work() { defer f.wg.Done() }

func (f *Flusher) flush() {
	f.n = 0
	f.flushed <- struct{}{}
}

func (f *Flusher) Close() {
	<-f.flushed
	f.wg.Wait()
}

func (f *Flusher) Start() {
	f.wg.Add(1)
	go f.work()
	go f.flush()
}

// Hub counts open streams in streams: each stream handler adds itself and
// is done when it returns; Close waits for the handlers, not for
// goroutines, so a goroutine a method starts is not its business.
type Hub struct {
	streams sync.WaitGroup
	n       int
}

func (h *Hub) Stream() {
	h.streams.Add(1)
	defer h.streams.Done()
	h.n++
}

func (h *Hub) Close() { h.streams.Wait() }

func (h *Hub) StartCertServer(serve func() error) {
	go func() {
		if err := serve(); err != nil {
			h.n = 0
		}
	}()
}

// Listeners counts open listeners in lns: track adds and is done in one
// function, so the field counts listeners, not goroutines, and a goroutine
// a method starts is none of its business (net/http's listenerGroup).
type Listeners struct {
	lns  sync.WaitGroup
	quit chan struct{}
	n    int
}

func (l *Listeners) track(add bool) {
	if add {
		l.lns.Add(1)
	} else {
		l.lns.Done()
	}
}

func (l *Listeners) sweep() { l.n++ }

func (l *Listeners) Serve() {
	l.track(true)
	defer l.track(false)
	go l.sweep()
	<-l.quit
}

func (l *Listeners) Close() {
	close(l.quit)
	l.lns.Wait()
}
