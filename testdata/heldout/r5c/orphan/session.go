package orphan

import (
	"errors"
	"os/exec"
	"time"
)

// ErrExecTimeout is returned when a command outlives its timeout.
var ErrExecTimeout = errors.New("exec: timeout")

// Session runs one external command.
type Session struct {
	cmd *exec.Cmd
}

// NewSession prepares a command; there is no caller context to bind it to,
// the timeout is enforced by WaitTimeout.
// ok: orphansend
func NewSession(name string, args ...string) *Session {
	return &Session{cmd: exec.Command(name, args...)}
}

// Start starts the command.
// ok: orphansend
func (s *Session) Start() error {
	return s.cmd.Start()
}

// WaitTimeout waits for the command, killing it after timeout. The async
// closure feeds an unbuffered channel from a goroutine; when the timer wins
// the function returns without receiving, and once the killed process is
// reaped the goroutine blocks on `ch <- f()` forever.
// From: codeskyblue/go-sh#26
// bug: orphansend
func (s *Session) WaitTimeout(timeout time.Duration) error {
	async := func(f func() error) <-chan error {
		ch := make(chan error)
		go func() { ch <- f() }()
		return ch
	}
	select {
	case err := <-async(s.cmd.Wait):
		return err
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		return ErrExecTimeout
	}
}

// WaitDeadline is the near-miss of WaitTimeout: the closure's channel has
// room for the one result, so the send completes even after the timer wins.
// From: codeskyblue/go-sh#26
// ok: orphansend
func (s *Session) WaitDeadline(timeout time.Duration) error {
	async := func(f func() error) <-chan error {
		ch := make(chan error, 1)
		go func() { ch <- f() }()
		return ch
	}
	select {
	case err := <-async(s.cmd.Wait):
		return err
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		return ErrExecTimeout
	}
}
