package untracked

import (
	"bufio"
	"io"
	"sync"
)

// Lines streams the lines of r on the returned channel. The producer has no way to be told the
// consumer is gone: a caller that stops reading early (it found the header it wanted) leaves the
// goroutine blocked on its next send for good.
// From: jwilder/dockerize#324
// bug: untrackedgo
func Lines(r io.Reader) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	return out
}

// LinesUntil takes a done channel from the caller and selects on it around every send, so closing
// done always lets the producer return.
// ok: untrackedgo
func LinesUntil(done <-chan struct{}, r io.Reader) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case out <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	return out
}

// Job is one scheduled unit of work.
type Job interface {
	Run()
}

// Scheduler runs jobs on a fixed set of workers that all watch stopCh.
type Scheduler struct {
	stopCh  chan struct{}
	jobs    chan Job
	workers int
	wg      sync.WaitGroup
}

// NewScheduler builds a scheduler with n workers.
// ok: untrackedgo
func NewScheduler(n int) *Scheduler {
	return &Scheduler{stopCh: make(chan struct{}), jobs: make(chan Job), workers: n}
}

// worker runs jobs until stopCh fires.
// ok: untrackedgo
func (s *Scheduler) worker() {
	for {
		select {
		case <-s.stopCh:
			return
		case j := <-s.jobs:
			j.Run()
		}
	}
}

// Start launches the workers, each registered with s.wg through a method value.
// ok: untrackedgo
func (s *Scheduler) Start() {
	for range s.workers {
		s.wg.Go(s.worker)
	}
}

// Stop sends a single value on stopCh although every worker is waiting on it: one worker exits and
// the others keep running after Stop has returned.
// From: go-co-op/gocron#837
// bug: untrackedgo
func (s *Scheduler) Stop() {
	s.stopCh <- struct{}{}
}

// Shutdown closes stopCh, which every worker observes, and waits for all of them.
// ok: untrackedgo
func (s *Scheduler) Shutdown() {
	close(s.stopCh)
	s.wg.Wait()
}

// DebugClient writes protocol messages to a remote debugger from a single sender goroutine.
type DebugClient struct {
	conn     io.WriteCloser
	requests chan []byte
	sendDone chan struct{}
	mu       sync.Mutex
	writeErr error
}

// NewDebugClient starts the sender; Shutdown joins it through sendDone.
// ok: untrackedgo
func NewDebugClient(conn io.WriteCloser) *DebugClient {
	c := &DebugClient{conn: conn, requests: make(chan []byte, 16), sendDone: make(chan struct{})}
	go c.sendMessages()
	return c
}

// sendMessages writes queued messages until requests is closed.
// ok: untrackedgo
func (c *DebugClient) sendMessages() {
	defer close(c.sendDone)
	for msg := range c.requests {
		if _, err := c.conn.Write(msg); err != nil {
			c.mu.Lock()
			c.writeErr = err
			c.mu.Unlock()
		}
	}
}

// Send queues msg for the sender.
// ok: untrackedgo
func (c *DebugClient) Send(msg []byte) {
	c.requests <- msg
}

// Close closes the socket but never closes c.requests, so sendMessages stays blocked in its range
// loop forever: one leaked goroutine per closed client.
// From: raff/godet#38
// bug: untrackedgo
func (c *DebugClient) Close() error {
	return c.conn.Close()
}

// Shutdown closes requests so the sender's range ends, waits for it, then closes the socket.
// ok: untrackedgo
func (c *DebugClient) Shutdown() error {
	close(c.requests)
	<-c.sendDone
	return c.conn.Close()
}

// Batcher accumulates records and writes them to out in batches.
type Batcher struct {
	mu  sync.Mutex
	buf [][]byte
	out io.WriteCloser
}

// flush writes everything buffered.
// ok: untrackedgo
func (b *Batcher) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rec := range b.buf {
		if _, err := b.out.Write(rec); err != nil {
			return err
		}
	}
	b.buf = nil
	return nil
}

// Close hands the final flush and the close of out to a goroutine and returns nil at once. The
// flush runs after the caller believes the batcher is closed (often after the process has started
// exiting), and its errors go nowhere.
// From: lovoo/goka#43
// bug: untrackedgo
func (b *Batcher) Close() error {
	go func() {
		if err := b.flush(); err == nil {
			b.out.Close()
		}
	}()
	return nil
}

// CloseSync still runs the final flush in a goroutine, but joins it through a result channel it
// receives from unconditionally before returning.
// ok: untrackedgo
func (b *Batcher) CloseSync() error {
	done := make(chan error, 1)
	go func() {
		if err := b.flush(); err != nil {
			done <- err
			return
		}
		done <- b.out.Close()
	}()
	return <-done
}
