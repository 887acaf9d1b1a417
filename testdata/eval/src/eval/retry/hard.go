package retry

import (
	"context"
	"log"
	"time"
)

// A reconnect loop run by a goroutine of a method; the loop sleeps with
// time.Sleep and never looks at the context.
//
// bug: retrycancel
func (a *Agent) StartReconnect(ctx context.Context, serve func(Conn)) {
	go func() {
		for {
			c, err := a.dialer.Dial(ctx, a.addr)
			if err != nil {
				log.Printf("dial: %v", err)
				time.Sleep(time.Second)
				continue
			}
			serve(c)
		}
	}()
}

// A condition loop whose only wait is a select over a timer.
//
// bug: retrycancel
func (a *Agent) WaitRegistered(ctx context.Context, name string) {
	registered := false
	for !registered {
		addrs, err := a.reg.Lookup(ctx, name)
		registered = err == nil && len(addrs) > 0
		if !registered {
			select {
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

// ok: retrycancel
func (a *Agent) StartReconnectOK(ctx context.Context, serve func(Conn)) {
	go func() {
		for {
			c, err := a.dialer.Dial(ctx, a.addr)
			if err != nil {
				log.Printf("dial: %v", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				continue
			}
			serve(c)
		}
	}()
}

// The loop condition checks the context; the pause is short.
//
// ok: retrycancel
func (a *Agent) SpinUntil(ctx context.Context, name string) bool {
	for ctx.Err() == nil {
		if err := a.reg.Heartbeat(ctx, name); err == nil {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// A loop that leaves on the stop channel.
//
// ok: retrycancel
func (a *Agent) Pulse(ctx context.Context, name string) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
			if err := a.reg.Heartbeat(ctx, name); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Printf("pulse: %v", err)
			}
		}
	}
}
