package untracked

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"time"
)

// ScriptExec runs a script and returns its exit status.
type ScriptExec interface {
	Exec(ctx context.Context, script string, args []string) (int, error)
	Forward(sig os.Signal)
}

// ShellContext runs scripts and forwards signals to them.
type ShellContext struct {
	exec ScriptExec
}

// Run executes script while relaying received signals to it.
// From: progrium/go-basher#29
// bug: untrackedgo
func (c *ShellContext) Run(ctx context.Context, script string, args []string) (int, error) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals)
	go func() {
		for sig := range signals {
			c.exec.Forward(sig)
		}
	}()
	status, err := c.exec.Exec(ctx, script, args)
	signal.Stop(signals)
	return status, err
}

// RunNearMiss closes the signal channel after Stop and waits for the relay to exit.
// ok: untrackedgo
func (c *ShellContext) RunNearMiss(ctx context.Context, script string, args []string) (int, error) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals)
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		for sig := range signals {
			c.exec.Forward(sig)
		}
	}()
	status, err := c.exec.Exec(ctx, script, args)
	signal.Stop(signals)
	close(signals)
	<-relayed
	return status, err
}

// RateMeter samples transfer progress at a fixed interval.
type RateMeter struct {
	interval time.Duration
	mu       sync.Mutex
	samples  []time.Duration
}

// sample records the elapsed time of one tick.
// ok: untrackedgo
func (m *RateMeter) sample(elapsed time.Duration) {
	m.mu.Lock()
	m.samples = append(m.samples, elapsed)
	m.mu.Unlock()
}

// Measure runs transfer and samples progress while it runs.
// From: showwin/speedtest-go#142
// bug: untrackedgo
func (m *RateMeter) Measure(ctx context.Context, transfer func(ctx context.Context) (int64, error)) (float64, error) {
	ticker := time.NewTicker(m.interval)
	defer ticker.Stop()
	start := time.Now()
	go func() {
		for range ticker.C {
			m.sample(time.Since(start))
		}
	}()
	n, err := transfer(ctx)
	if err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// MeasureNearMiss stops the sampler through a done channel and waits for it.
// ok: untrackedgo
func (m *RateMeter) MeasureNearMiss(ctx context.Context, transfer func(ctx context.Context) (int64, error)) (float64, error) {
	ticker := time.NewTicker(m.interval)
	defer ticker.Stop()
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
				m.sample(time.Since(start))
			}
		}
	}()
	n, err := transfer(ctx)
	close(stop)
	wg.Wait()
	if err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// SSHRequest is an out-of-band request on an SSH session.
type SSHRequest interface {
	Reply(ok bool) error
}

// SSHSession is one interactive session.
type SSHSession interface {
	Requests() <-chan SSHRequest
}

// SSHController serves interactive shells.
type SSHController struct {
	shell func(ctx context.Context, s SSHSession) error
}

// HandleSession rejects side requests and runs the shell.
// From: sdslabs/gasper#207
// bug: untrackedgo
func (c *SSHController) HandleSession(ctx context.Context, sess SSHSession) error {
	reqs := sess.Requests()
	go func() {
		for req := range reqs {
			req.Reply(false)
		}
	}()
	return c.shell(ctx, sess)
}

// HandleSessionNearMiss stops the request handler with the session and waits for it.
// ok: untrackedgo
func (c *SSHController) HandleSessionNearMiss(ctx context.Context, sess SSHSession) error {
	reqs := sess.Requests()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-sctx.Done():
				return
			case req, ok := <-reqs:
				if !ok {
					return
				}
				req.Reply(false)
			}
		}
	}()
	err := c.shell(ctx, sess)
	cancel()
	<-done
	return err
}
