package a

import "context"

// A supervisor whose tunnel goroutines report on a field channel that its
// run loop receives from and counts (cloudflared's Supervisor): a method
// goroutine that reports on a field signals what a literal doing the same
// would.
type supervisor struct {
	results chan error
	active  int
}

func (s *supervisor) serve(ctx context.Context, i int) error { return ctx.Err() }

func (s *supervisor) startTunnel(ctx context.Context, i int) {
	err := s.serve(ctx, i)
	s.results <- err
}

// startTunnelVia reports through a helper that sends on the field.
func (s *supervisor) startTunnelVia(ctx context.Context, i int) {
	s.report(s.serve(ctx, i))
}

func (s *supervisor) report(err error) { s.results <- err }

func (s *supervisor) startAll(ctx context.Context, n int) {
	for i := range n {
		go s.startTunnel(ctx, i)
	}
	go s.startTunnelVia(ctx, n)
	s.active = n + 1
}

func (s *supervisor) startAllLit(ctx context.Context, n int) {
	for i := range n {
		go func() { s.results <- s.serve(ctx, i) }()
	}
	s.active = n
}

// Near-miss positive: a method goroutine that reports nothing is cut off
// when startQuiet's caller cancels ctx.
func (s *supervisor) serveQuiet(ctx context.Context, i int) { _ = s.serve(ctx, i) }

func (s *supervisor) startQuiet(ctx context.Context, n int) error {
	for i := range n {
		go s.serveQuiet(ctx, i) // want `goroutine uses the context ctx of startQuiet, which can return without waiting for it`
	}
	return nil
}
