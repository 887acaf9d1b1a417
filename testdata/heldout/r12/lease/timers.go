package lease

import (
	"context"
	"sync"
	"time"
)

// ChargePoint is the remote end of an OCPP connection.
type ChargePoint interface {
	Reset() error
}

// Connector tracks liveness of one charge point connector.
type Connector struct {
	mu       sync.Mutex
	lastSeen time.Time
	cp       ChargePoint
	resets   int
}

// touch records that a message arrived.
// ok: leaseleak
func (c *Connector) touch() {
	c.mu.Lock()
	c.lastSeen = time.Now()
	c.mu.Unlock()
}

// stale reports whether the connector has been silent for longer than timeout.
// ok: leaseleak
func (c *Connector) stale(timeout time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.lastSeen) > timeout
}

// WatchDog resets the connector when it stops talking.
// From: evcc-io/evcc#28830
// bug: leaseleak
func (c *Connector) WatchDog(ctx context.Context, timeout time.Duration) {
	for tick := time.NewTicker(2 * time.Second); ; {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if c.stale(timeout) {
				c.mu.Lock()
				c.resets++
				c.mu.Unlock()
				c.touch()
			}
		}
	}
}

// WatchDogNearMiss stops its ticker when the watchdog exits.
// ok: leaseleak
func (c *Connector) WatchDogNearMiss(ctx context.Context, timeout time.Duration) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if c.stale(timeout) {
				c.mu.Lock()
				c.resets++
				c.mu.Unlock()
				c.touch()
			}
		}
	}
}

// Process is a supervised worker process.
type Process interface {
	Interrupt() error
	Kill() error
	Done() <-chan struct{}
}

// ProcManager owns one worker process.
type ProcManager struct {
	proc Process
}

// Terminate asks the process to exit and kills it after the grace period.
// From: hrygo/hotplex#41
// bug: leaseleak
func (m *ProcManager) Terminate(ctx context.Context, grace time.Duration) error {
	if err := m.proc.Interrupt(); err != nil {
		return m.proc.Kill()
	}
	timer := time.NewTimer(grace)
	select {
	case <-m.proc.Done():
		return nil
	case <-timer.C:
		return m.proc.Kill()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TerminateNearMiss stops the grace timer whichever branch wins.
// ok: leaseleak
func (m *ProcManager) TerminateNearMiss(ctx context.Context, grace time.Duration) error {
	if err := m.proc.Interrupt(); err != nil {
		return m.proc.Kill()
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-m.proc.Done():
		return nil
	case <-timer.C:
		return m.proc.Kill()
	case <-ctx.Done():
		return ctx.Err()
	}
}
