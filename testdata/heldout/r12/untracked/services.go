package untracked

import (
	"context"
	"fmt"
	"io"
	"iter"
	"sync"
	"time"
)

// Registry records control-service registrations and status.
type Registry interface {
	Register(ctx context.Context, service string) error
	PublishStatus(service string)
}

// ControlServer advertises a control service on the mesh.
type ControlServer struct {
	reg       Registry
	service   string
	heartbeat time.Duration
	wg        sync.WaitGroup
}

// Start registers the service and starts its heartbeat.
// From: ansible/receptor#786
// bug: untrackedgo
func (s *ControlServer) Start(ctx context.Context) error {
	if err := s.reg.Register(ctx, s.service); err != nil {
		return fmt.Errorf("register %s: %w", s.service, err)
	}
	go func() {
		t := time.NewTicker(s.heartbeat)
		defer t.Stop()
		for range t.C {
			s.reg.PublishStatus(s.service)
		}
	}()
	return nil
}

// StartNearMiss ends the heartbeat with ctx and tracks it for Wait.
// ok: untrackedgo
func (s *ControlServer) StartNearMiss(ctx context.Context) error {
	if err := s.reg.Register(ctx, s.service); err != nil {
		return fmt.Errorf("register %s: %w", s.service, err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.heartbeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.reg.PublishStatus(s.service)
			}
		}
	}()
	return nil
}

// Wait blocks until the heartbeat started by StartNearMiss has exited.
// ok: untrackedgo
func (s *ControlServer) Wait() {
	s.wg.Wait()
}

// tracker counts running consumers so shutdown can wait for them.
type tracker struct {
	wg sync.WaitGroup
}

// enter registers one running consumer.
// ok: untrackedgo
func (t *tracker) enter() { t.wg.Add(1) }

// leave marks one consumer finished.
// ok: untrackedgo
func (t *tracker) leave() { t.wg.Done() }

// wait blocks until every registered consumer has left.
// ok: untrackedgo
func (t *tracker) wait() { t.wg.Wait() }

// Pool runs a fixed number of consumers.
type Pool struct {
	work    func(ctx context.Context, id int)
	cancel  context.CancelFunc
	running tracker
}

// Start launches n consumers.
// From: carwow/umbra#128
// bug: untrackedgo
func (p *Pool) Start(ctx context.Context, n int) {
	ctx, p.cancel = context.WithCancel(ctx)
	for i := 0; i < n; i++ {
		go func() {
			p.running.enter()
			defer p.running.leave()
			p.work(ctx, i)
		}()
	}
}

// StartNearMiss registers each consumer before it is started.
// ok: untrackedgo
func (p *Pool) StartNearMiss(ctx context.Context, n int) {
	ctx, p.cancel = context.WithCancel(ctx)
	for i := 0; i < n; i++ {
		p.running.enter()
		go func() {
			defer p.running.leave()
			p.work(ctx, i)
		}()
	}
}

// Stop cancels the consumers and waits for them.
// ok: untrackedgo
func (p *Pool) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.running.wait()
}

// Spinner draws a progress spinner on a terminal.
type Spinner struct {
	out    io.Writer
	frames []string
	delay  time.Duration
}

// draw writes frame i.
// ok: untrackedgo
func (s *Spinner) draw(i int) {
	fmt.Fprintf(s.out, "\r%s", s.frames[i%len(s.frames)])
}

// clear erases the spinner line.
// ok: untrackedgo
func (s *Spinner) clear() {
	fmt.Fprint(s.out, "\r\033[K")
}

// Start begins animating and returns the function that stops the spinner.
// From: caarlos0-graveyard/spin#1
// bug: untrackedgo
func (s *Spinner) Start() (stop func()) {
	quit := make(chan struct{})
	go func() {
		t := time.NewTicker(s.delay)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-quit:
				s.clear()
				return
			case <-t.C:
				s.draw(i)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit) }) }
}

// StartNearMiss returns a stop function that waits for the animation to finish.
// ok: untrackedgo
func (s *Spinner) StartNearMiss() (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.delay)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-quit:
				s.clear()
				return
			case <-t.C:
				s.draw(i)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

// Provider is a content provider record.
type Provider struct {
	PeerID string
	Addrs  []string
}

// ProviderResult is a provider or the error that ended the lookup.
type ProviderResult struct {
	Provider Provider
	Err      error
}

// RoutingAPI streams provider records.
type RoutingAPI interface {
	Providers(ctx context.Context, key string) iter.Seq2[Provider, error]
}

// RoutingClient is a delegated routing client.
type RoutingClient struct {
	api RoutingAPI
}

// FindProvidersAsync streams providers for key on the returned channel.
// From: ipfs/boxo#618
// bug: untrackedgo
func (c *RoutingClient) FindProvidersAsync(ctx context.Context, key string) <-chan ProviderResult {
	out := make(chan ProviderResult)
	go func() {
		defer close(out)
		for p, err := range c.api.Providers(ctx, key) {
			out <- ProviderResult{Provider: p, Err: err}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// FindProvidersAsyncNearMiss stops sending once the caller's context is done.
// ok: untrackedgo
func (c *RoutingClient) FindProvidersAsyncNearMiss(ctx context.Context, key string) <-chan ProviderResult {
	out := make(chan ProviderResult)
	go func() {
		defer close(out)
		for p, err := range c.api.Providers(ctx, key) {
			select {
			case out <- ProviderResult{Provider: p, Err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}
