package orphan

import (
	"os"
	"syscall"
	"time"
)

// Container is a running container's process handle.
type Container struct {
	proc   *os.Process
	exited chan struct{}
}

// Signal sends sig to the container's init process.
// ok: orphansend
func (c *Container) Signal(sig os.Signal) error {
	return c.proc.Signal(sig)
}

// WaitExit blocks until the container's monitor reports the exit.
// ok: orphansend
func (c *Container) WaitExit() {
	<-c.exited
}

// Daemon manages containers.
type Daemon struct{}

// StopContainer sends SIGTERM and waits up to timeout for the exit, then
// escalates to SIGKILL. The monitor goroutine reports through a deferred send
// on an unbuffered channel; after the timeout the function returns, and once
// the killed container exits the deferred `done <- true` blocks forever.
// From: moby/moby#5955
// bug: orphansend
func (d *Daemon) StopContainer(c *Container, timeout time.Duration) error {
	if err := c.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		c.WaitExit()
	}()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		return c.Signal(syscall.SIGKILL)
	}
}

// KillContainer is the near-miss of StopContainer: done is buffered for its
// one deferred send, so the monitor goroutine finishes even when nobody waits.
// From: moby/moby#5955
// ok: orphansend
func (d *Daemon) KillContainer(c *Container, timeout time.Duration) error {
	if err := c.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	done := make(chan bool, 1)
	go func() {
		defer func() { done <- true }()
		c.WaitExit()
	}()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		return c.Signal(syscall.SIGKILL)
	}
}
