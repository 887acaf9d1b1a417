package orphan

import (
	"errors"
	"time"
)

// ErrStopTimeout is returned when the implant does not confirm in time.
var ErrStopTimeout = errors.New("implant did not confirm stop")

// RPC is the implant's command channel.
type RPC interface {
	Call(method string, args any) error
}

// ImplantConn controls one implant.
type ImplantConn struct {
	rpc RPC
}

// Stop asks the implant to exit and waits up to d for it to acknowledge.
// The goroutine signals with a send on an unbuffered channel; if the timer
// fires first the function returns, and when the acknowledgement finally
// arrives the goroutine blocks on `done <- struct{}{}` forever.
// From: BishopFox/sliver#1089
// bug: orphansend
func (c *ImplantConn) Stop(d time.Duration) error {
	done := make(chan struct{})
	go func() {
		_ = c.rpc.Call("Kill", nil)
		done <- struct{}{}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return ErrStopTimeout
	}
}

// Sleep is the near-miss of Stop: the goroutine signals by closing done,
// which never blocks, so it exits whether or not anyone is still waiting.
// From: BishopFox/sliver#1089
// ok: orphansend
func (c *ImplantConn) Sleep(d time.Duration) error {
	done := make(chan struct{})
	go func() {
		_ = c.rpc.Call("Sleep", nil)
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return ErrStopTimeout
	}
}
