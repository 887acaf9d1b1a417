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

// StartWatching runs until quit is closed.
func (s *Server) StartWatching() {
	go func() {
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
