// Package orphan holds goroutines whose result send blocks forever because
// the receiver already gave up, and the near-misses that cannot block.
package orphan

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	"heldoutr7/stub"
)

// RunWithTimeout waits for the command on an unbuffered channel. On the
// timeout branch it kills the process and returns; Wait then returns in the
// goroutine, whose send has no receiver left, and one goroutine (and the
// command's pipes) leaks per timed-out run.
// From: google/cadvisor#2549
// bug: orphansend
func RunWithTimeout(ctx context.Context, name string, args []string, timeout time.Duration) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.Bytes(), err
	case <-time.After(timeout):
		if err := cmd.Process.Kill(); err != nil {
			return nil, fmt.Errorf("%s timed out after %s; kill: %w", name, timeout, err)
		}
		return nil, fmt.Errorf("%s timed out after %s", name, timeout)
	}
}

// RunWithTimeoutBuffered gives the channel one slot, so the send completes
// whether or not anyone is still waiting.
// ok: orphansend
func RunWithTimeoutBuffered(ctx context.Context, name string, args []string, timeout time.Duration) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.Bytes(), err
	case <-time.After(timeout):
		if err := cmd.Process.Kill(); err != nil {
			return nil, fmt.Errorf("%s timed out after %s; kill: %w", name, timeout, err)
		}
		return nil, fmt.Errorf("%s timed out after %s", name, timeout)
	}
}

// Worker runs a unit of work inside a pod.
type Worker struct {
	WaitRunning func()
	Name        string
}

// WaitStarted returns on ctx.Done, but the helper goroutine then blocks on
// `started <- true` once the pod finally runs, because the unbuffered
// channel has no reader left. Each cancelled start leaks a goroutine.
// From: ansible/receptor#436
// bug: orphansend
func (w *Worker) WaitStarted(ctx context.Context) error {
	started := make(chan bool)
	go func() {
		w.WaitRunning()
		started <- true
	}()
	select {
	case <-started:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("worker %s: waiting for pod: %w", w.Name, ctx.Err())
	}
}

// WaitStartedClosed signals by closing a struct{} channel, which never
// blocks.
// ok: orphansend
func (w *Worker) WaitStartedClosed(ctx context.Context) error {
	started := make(chan struct{})
	go func() {
		defer close(started)
		w.WaitRunning()
	}()
	select {
	case <-started:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("worker %s: waiting for pod: %w", w.Name, ctx.Err())
	}
}

// Retrier produces retry attempt numbers with exponential backoff.
type Retrier struct {
	Base time.Duration
	Cap  time.Duration
}

// Attempts returns a channel of attempt numbers. The producer sends
// unconditionally; when the caller stops ranging (success, or returning on
// its own ctx.Done) the producer is stuck on its next send forever.
// From: minio/minio-go#1260
// bug: orphansend
func (r *Retrier) Attempts(ctx context.Context, max int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range max {
			ch <- i
			wait := min(r.Base<<i, r.Cap)
			if err := stub.Sleep(ctx, wait); err != nil {
				return
			}
		}
	}()
	return ch
}

// AttemptsCtx selects on the context for every send; callers cancel the
// context (defer cancel()) when they stop reading.
// ok: orphansend
func (r *Retrier) AttemptsCtx(ctx context.Context, max int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range max {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
			wait := min(r.Base<<i, r.Cap)
			if err := stub.Sleep(ctx, wait); err != nil {
				return
			}
		}
	}()
	return ch
}

// Prober runs a health check with a timeout.
type Prober struct {
	Check   func(target string) bool
	Timeout time.Duration
}

// Probe returns on timeout or cancellation while the check goroutine is
// still running; its later `result <- ok` on the unbuffered channel has no
// receiver and blocks forever.
// From: golang/go#37148
// bug: orphansend
func (p *Prober) Probe(ctx context.Context, target string) (bool, error) {
	result := make(chan bool)
	go func() {
		result <- p.Check(target)
	}()
	select {
	case ok := <-result:
		return ok, nil
	case <-time.After(p.Timeout):
		return false, fmt.Errorf("probe %s: no answer after %s", target, p.Timeout)
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// ProbeDrained receives the pending result on the timeout and cancel
// branches before returning, so the sender always completes (Check is
// bounded by its transport's own timeout).
// ok: orphansend
func (p *Prober) ProbeDrained(ctx context.Context, target string) (bool, error) {
	result := make(chan bool)
	go func() {
		result <- p.Check(target)
	}()
	select {
	case ok := <-result:
		return ok, nil
	case <-time.After(p.Timeout):
		<-result
		return false, fmt.Errorf("probe %s: no answer after %s", target, p.Timeout)
	case <-ctx.Done():
		<-result
		return false, ctx.Err()
	}
}

// Await runs fn in a goroutine and waits for it or for ctx. On ctx.Done
// Await returns, and the goroutine's send of its result on the unbuffered
// channel blocks forever, keeping fn's result alive with it.
// From: kamilsk/retry#109
// bug: orphansend
func Await[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// AwaitBuffered uses a one-slot channel, so the late result is dropped
// into the buffer and collected with it.
// ok: orphansend
func AwaitBuffered[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// WatchEither returns a channel that fires when either context ends. The
// watcher sends one value on an unbuffered channel, so it blocks until
// someone receives; a caller that returns early without reading leaves the
// goroutine (and both contexts) pinned for good.
// From: openHPI/poseidon#430
// bug: orphansend
func WatchEither(a, b context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		select {
		case <-a.Done():
		case <-b.Done():
		}
		done <- struct{}{}
	}()
	return done
}

// WatchEitherClosed closes the channel instead of sending, which never
// blocks and wakes every reader.
// ok: orphansend
func WatchEitherClosed(a, b context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		select {
		case <-a.Done():
		case <-b.Done():
		}
		close(done)
	}()
	return done
}

// Pipe streams parsed lines to the consumer over an unbuffered channel.
// The consumer may stop on ctx.Done, but the producer's every send is in a
// select with the same context, so it exits too.
// ok: orphansend
func Pipe(ctx context.Context, lines []string, parse func(string) (int, error)) (<-chan int, <-chan error) {
	out := make(chan int)
	errc := make(chan error, 1)
	go func() {
		defer close(out)
		for _, l := range lines {
			v, err := parse(l)
			if err != nil {
				errc <- fmt.Errorf("parse %q: %w", l, err)
				return
			}
			select {
			case out <- v:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	return out, errc
}

// FetchAll fans out one goroutine per URL and returns on the first error,
// abandoning the rest (their requests are cancelled by the deferred
// cancel); the result channel has one slot per goroutine, so the abandoned
// senders never block.
// ok: orphansend
func FetchAll(ctx context.Context, urls []string, get func(ctx context.Context, url string) ([]byte, error)) (map[string][]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		url  string
		body []byte
		err  error
	}
	ch := make(chan res, len(urls))
	for _, u := range urls {
		go func() {
			b, err := get(ctx, u)
			ch <- res{u, b, err}
		}()
	}
	out := make(map[string][]byte, len(urls))
	for range urls {
		r := <-ch
		if r.err != nil {
			return nil, fmt.Errorf("fetch %s: %w", r.url, r.err)
		}
		out[r.url] = r.body
	}
	return out, nil
}
