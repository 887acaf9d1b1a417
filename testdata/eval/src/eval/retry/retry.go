// Package retry holds retrycancel cases: reconnect, poll and retry loops
// that keep going after their context is done, shaped after reports of
// leader-election and watch reconnect loops spinning with time.Sleep after
// shutdown, health probes retrying DeadlineExceeded of the parent context,
// and registration loops without a context check.
package retry

import (
	"context"
	"errors"
	"log"
	"net"
	"time"
)

type Conn interface {
	Ping(ctx context.Context) error
	Close() error
}

type Dialer interface {
	Dial(ctx context.Context, addr string) (Conn, error)
}

type Registry interface {
	Register(ctx context.Context, name, addr string) error
	Heartbeat(ctx context.Context, name string) error
	Lookup(ctx context.Context, name string) ([]string, error)
}

type Agent struct {
	dialer  Dialer
	reg     Registry
	addr    string
	backoff time.Duration
	stop    chan struct{}
}

// bug: retrycancel
func (a *Agent) Connect(ctx context.Context) (Conn, error) {
	for {
		c, err := a.dialer.Dial(ctx, a.addr)
		if err == nil {
			return c, nil
		}
		log.Printf("dial %s: %v; retrying", a.addr, err)
		time.Sleep(a.backoff)
	}
}

// bug: retrycancel
func (a *Agent) Register(ctx context.Context, name string) error {
	for attempt := 0; attempt < 10; attempt++ {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		<-time.After(time.Duration(attempt+1) * time.Second)
	}
	return errors.New("register: too many attempts")
}

// bug: retrycancel
func (a *Agent) WaitReady(ctx context.Context, c Conn) error {
	for {
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		return err
	}
}

// bug: retrycancel
func (a *Agent) Heartbeat(ctx context.Context, name string) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for range t.C {
		if err := a.reg.Heartbeat(ctx, name); err != nil {
			log.Printf("heartbeat: %v", err)
		}
	}
}

// bug: retrycancel
func (a *Agent) Resolve(ctx context.Context, name string) ([]string, error) {
	var lastErr error
	for i := 0; i < 5; i++ {
		addrs, err := a.reg.Lookup(ctx, name)
		if err == nil && len(addrs) > 0 {
			return addrs, nil
		}
		lastErr = err
		time.Sleep(200 * time.Millisecond)
	}
	return nil, lastErr
}

// bug: retrycancel
func (a *Agent) KeepAlive(ctx context.Context, name string) {
	for {
		if err := a.reg.Heartbeat(ctx, name); err != nil {
			log.Printf("keepalive: %v", err)
		}
		time.Sleep(10 * time.Second)
	}
}

// bug: retrycancel
func (a *Agent) Probe(ctx context.Context, c Conn) error {
	failures := 0
	for failures < 3 {
		if err := c.Ping(ctx); err != nil {
			failures++
			continue
		}
		failures = 0
		return nil
	}
	return errors.New("probe failed")
}

// bug: retrycancel
func (a *Agent) PollLookup(ctx context.Context, name string) []string {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		addrs, err := a.reg.Lookup(ctx, name)
		if err == nil && len(addrs) > 0 {
			return addrs
		}
		<-tick.C
	}
}

// bug: retrycancel
func (a *Agent) Announce(ctx context.Context, name string) error {
	backoff := 100 * time.Millisecond
	for {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		var nerr net.Error
		if errors.As(err, &nerr) && nerr.Timeout() {
			time.Sleep(backoff)
			backoff *= 2
			continue
		}
		return err
	}
}

// bug: retrycancel
func (a *Agent) Reconnect(ctx context.Context) Conn {
	for {
		c, err := a.dialer.Dial(ctx, a.addr)
		if err == nil {
			return c
		}
		select {
		case <-time.After(a.backoff):
		}
	}
}

// bug: retrycancel
func (a *Agent) ReRegister(ctx context.Context, name string) error {
	for {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			log.Printf("register interrupted, retrying")
			continue
		}
		return err
	}
}

// bug: retrycancel
func (a *Agent) Sync(ctx context.Context, name string) {
	for n := range 20 {
		if err := a.reg.Heartbeat(ctx, name); err == nil {
			return
		}
		time.Sleep(time.Duration(n) * 500 * time.Millisecond)
	}
}

// bug: retrycancel
func (a *Agent) Maintain(ctx context.Context, name string) {
	for {
		c, err := a.dialer.Dial(ctx, a.addr)
		if err != nil {
			log.Printf("dial: %v", err)
			continue
		}
		_ = c.Ping(ctx)
		c.Close()
	}
}

// bug: retrycancel
func (a *Agent) Ensure(ctx context.Context, name string) error {
	var err error
	for i := 0; i < 8; i++ {
		if err = a.reg.Register(ctx, name, a.addr); err == nil {
			return nil
		}
		timer := time.NewTimer(time.Duration(1<<i) * 100 * time.Millisecond)
		<-timer.C
	}
	return err
}

// ---- near-misses ----

// ok: retrycancel
func (a *Agent) ConnectCtx(ctx context.Context) (Conn, error) {
	for {
		c, err := a.dialer.Dial(ctx, a.addr)
		if err == nil {
			return c, nil
		}
		log.Printf("dial %s: %v; retrying", a.addr, err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(a.backoff):
		}
	}
}

// ok: retrycancel
func (a *Agent) RegisterChecked(ctx context.Context, name string) error {
	for attempt := 0; attempt < 10; attempt++ {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := time.NewTimer(time.Duration(attempt+1) * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return errors.New("register: too many attempts")
}

// ok: retrycancel
func (a *Agent) WaitReadyPerAttempt(ctx context.Context, c Conn) error {
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(actx)
		cancel()
		if err == nil {
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// ok: retrycancel
func (a *Agent) HeartbeatLoop(ctx context.Context, name string) error {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := a.reg.Heartbeat(ctx, name); err != nil {
				log.Printf("heartbeat: %v", err)
			}
		}
	}
}

// ok: retrycancel
func (a *Agent) RegisterOnce(ctx context.Context, name string) error {
	for i := 0; i < 3; i++ {
		err := a.reg.Register(ctx, name, a.addr)
		if err != nil {
			return err
		}
	}
	return nil
}

// ok: retrycancel
func (a *Agent) LookupAll(ctx context.Context, names []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, n := range names {
		addrs, err := a.reg.Lookup(ctx, n)
		if err != nil {
			return nil, err
		}
		out[n] = addrs
	}
	return out, nil
}

// ok: retrycancel
func (a *Agent) KeepAliveStop(ctx context.Context, name string) {
	for {
		if err := a.reg.Heartbeat(ctx, name); err != nil {
			log.Printf("keepalive: %v", err)
		}
		select {
		case <-a.stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Second):
		}
	}
}

// ok: retrycancel
func (a *Agent) Announce2(ctx context.Context, name string) error {
	backoff := 100 * time.Millisecond
	for {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// ok: retrycancel
func (a *Agent) SpinBrief(ctx context.Context, c Conn) error {
	for i := 0; i < 3; i++ {
		if err := c.Ping(ctx); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("unreachable")
}

// ok: retrycancel
func (a *Agent) AcceptLoop(l net.Listener, handle func(net.Conn)) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go handle(c)
	}
}

// ok: retrycancel
func (a *Agent) Backoff(ctx context.Context, name string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = a.reg.Register(ctx, name, a.addr); err == nil {
			return nil
		}
		if !isTransient(err) {
			return err
		}
		if werr := sleepCtx(ctx, time.Duration(i)*time.Second); werr != nil {
			return werr
		}
	}
	return err
}

// ok: retrycancel
func isTransient(err error) bool {
	var nerr net.Error
	return errors.As(err, &nerr) && nerr.Timeout()
}

// ok: retrycancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ok: retrycancel
func (a *Agent) UntilStop(ctx context.Context, name string) {
	for {
		select {
		case <-a.stop:
			return
		default:
		}
		if err := a.reg.Heartbeat(ctx, name); err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Printf("heartbeat: %v", err)
		}
		if err := sleepCtx(ctx, time.Second); err != nil {
			return
		}
	}
}

// ok: retrycancel
func (a *Agent) PollTimer(ctx context.Context, name string) ([]string, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		addrs, err := a.reg.Lookup(ctx, name)
		if err != nil {
			return nil, err
		}
		if len(addrs) > 0 {
			return addrs, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}
