package orphan

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"time"
)

// Modelled on an in-process HTTP bridge whose handler goroutine sent its
// recorded response on an unbuffered channel while the caller selected on
// the request's context.
//
// bug: orphansend
func Do(h http.Handler, r *http.Request) (*http.Response, error) {
	ans := make(chan *http.Response)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		ans <- rec.Result()
	}()
	select {
	case res := <-ans:
		return res, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// Modelled on a command runner whose done channel was sent to after a
// timer fired and the caller had returned.
//
// bug: orphansend
func RunWithTimeout(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		done <- cmd.Wait()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		cmd.Process.Kill()
		return errors.New("command timed out")
	}
}

type Session struct {
	stop chan struct{}
	l    Loader
}

// Modelled on a doneChan that lost its reader when another channel won.
//
// bug: orphansend
func (s *Session) WaitLoaded(url string) bool {
	doneChan := make(chan bool)
	go func() {
		_, err := s.l.Load(url)
		doneChan <- err == nil
	}()
	select {
	case ok := <-doneChan:
		return ok
	case <-s.stop:
		return false
	}
}

// The result is received in a second function step: the early return on a
// validation error abandons the sender.
//
// bug: orphansend
func (s *Session) LoadAndCheck(ctx context.Context, url string, maxSize int) (*Page, error) {
	pc := make(chan *Page)
	go func() {
		p, _ := s.l.LoadCtx(ctx, url)
		pc <- p
	}()
	if maxSize <= 0 {
		return nil, errors.New("bad size")
	}
	p := <-pc
	return p, nil
}

// Fixed form of RunWithTimeout: one sender, one slot.
//
// ok: orphansend
func RunWithTimeoutOK(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		done <- cmd.Wait()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		cmd.Process.Kill()
		<-done
		return errors.New("command timed out")
	}
}

// The done channel is closed, never sent on: closing cannot block.
//
// ok: orphansend
func (s *Session) WaitClosed(ctx context.Context, url string) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.l.Load(url)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A helper returns the channel; the caller owns the receive.
//
// ok: orphansend
func (s *Session) Async(ctx context.Context, url string) <-chan *Page {
	ch := make(chan *Page, 1)
	go func() {
		p, _ := s.l.LoadCtx(ctx, url)
		ch <- p
	}()
	return ch
}

// ok: orphansend
func (s *Session) Gather(ctx context.Context, urls []string) ([]*Page, error) {
	type res struct {
		i int
		p *Page
	}
	ch := make(chan res)
	for i, u := range urls {
		go func() {
			p, _ := s.l.LoadCtx(ctx, u)
			ch <- res{i, p}
		}()
	}
	out := make([]*Page, len(urls))
	for range urls {
		r := <-ch
		out[r.i] = r.p
	}
	return out, nil
}
