package a

import "sync"

type request struct{ method string }

type sipServer struct {
	mu       sync.RWMutex
	handlers map[string]func(request)
	hwg      sync.WaitGroup
}

// serve counts each request's goroutine in hwg; shutdown waits for them.
func (s *sipServer) serve(req request) {
	s.hwg.Add(1)
	go s.handle(req)
}

func (s *sipServer) shutdown() { s.hwg.Wait() }

// handle starts the user's handler in a goroutine of its own, which hwg
// does not count: shutdown returns while handlers still run.
func (s *sipServer) handle(req request) {
	defer s.hwg.Done()
	s.mu.RLock()
	h, ok := s.handlers[req.method]
	s.mu.RUnlock()
	if !ok {
		return
	}
	go h(req) // want `goroutine started by handle is not counted in hwg, which the type's other goroutines are counted in and its shutdown waits on`
}

// handleInline runs the handler in the counted goroutine.
func (s *sipServer) handleInline(req request) {
	defer s.hwg.Done()
	s.mu.RLock()
	h, ok := s.handlers[req.method]
	s.mu.RUnlock()
	if ok {
		h(req)
	}
}

// handleCounted hands the handler the group it is counted in.
func (s *sipServer) handleCounted(req request, run func(*sync.WaitGroup, request)) {
	defer s.hwg.Done()
	s.hwg.Add(1)
	go run(&s.hwg, req)
}

type hooked struct {
	lg      sync.WaitGroup
	onClose []func()
}

// close fires the registered hooks and waits for its listeners: the hooks
// are the shutdown's own, started as it runs.
func (h *hooked) close() {
	for _, f := range h.onClose {
		go f()
	}
	h.lg.Wait()
}

func (h *hooked) listen() {
	h.lg.Add(1)
	go func() { defer h.lg.Done() }()
}
