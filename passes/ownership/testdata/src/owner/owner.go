// Package owner declares helpers whose ownership facts package user reads.
package owner

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"time"
)

// Close releases its parameter.
func Close(c io.Closer) error { return c.Close() } // want Close:"releases its parameter 0"

// Keep stores its parameter in an owner that releases it.
type Keeper struct {
	files []*os.File
	body  io.ReadCloser
}

func (k *Keeper) Keep(f *os.File) { k.files = append(k.files, f) } // want Keep:"releases its parameter 0"

func (k *Keeper) Close() {
	for _, f := range k.files {
		f.Close()
	}
}

// Later hands its parameter to a goroutine.
func Later(cancel context.CancelFunc, d time.Duration) { // want Later:"releases its parameter 0"
	go func() {
		time.Sleep(d)
		cancel()
	}()
}

// Size only reads: no fact.
func Size(r io.Reader) int {
	b, _ := io.ReadAll(r)
	return len(b)
}

// Wrap keeps its parameter in a struct with no release method: no fact.
type wrapped struct{ r io.Reader }

func Wrap(r io.Reader) io.Reader { return wrapped{r: r} }

func (w wrapped) Read(p []byte) (int, error) { return w.r.Read(p) }

// Open returns an owned file.
func Open(name string) (*os.File, error) { // want Open:"returns an owned file in result 0"
	return os.Open(name)
}

// Get returns an owned response.
func Get(url string) (*http.Response, error) { // want Get:"returns an owned body in result 0"
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Dial reads the handshake response and replaces its body with a copy
// (nhooyr.io/websocket's Dial): the caller gets no body to close.
func Dial(url string) (*http.Response, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// Hijack keeps the body for itself and clears the field: no body to close.
func (k *Keeper) Hijack(url string) (*http.Response, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	k.body = resp.Body
	resp.Body = nil
	return resp, nil
}

// DialConn moves the body into the connection it returns and clears the
// response's field (nhooyr.io/websocket's Dial): the response holds no
// body to close.
type Conn struct{ rwc io.ReadCloser }

func (c *Conn) Close() error { return c.rwc.Close() }

func DialConn(url string) (*Conn, *http.Response, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, nil, err
	}
	body := resp.Body
	resp.Body = nil
	return &Conn{rwc: body}, resp, nil
}

// Shared returns a file it also keeps: not owned by the caller.
func (k *Keeper) Shared(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	k.files = append(k.files, f)
	return f, nil
}

// Stop calls its func() parameter, which may be a cancel function.
func Stop(stop func()) { stop() } // want Stop:"releases its parameter 0"

// Abort calls its func(error) parameter, which may be a CancelCauseFunc.
func Abort(abort func(error), err error) { abort(err) } // want Abort:"releases its parameter 0"

// Count calls a predicate, which cannot be a cancel function: no fact.
func Count(s string, pred func(rune) bool) int {
	n := 0
	for _, r := range s {
		if pred(r) {
			n++
		}
	}
	return n
}

// Token is a named function type with a release method (a configured
// lease may be one): calling code may release it.
type Token func(rune) bool

func (Token) Release() {}

func Use(t Token) { t.Release() } // want Use:"releases its parameter 0"

// closeQuietly releases its parameter, but no other package can call it:
// no fact, callers in this package use the pass's own summary.
func closeQuietly(c io.Closer) { c.Close() }

// CloseAll calls the unexported helper: the summary of closeQuietly makes
// it release its parameter too.
func CloseAll(c io.Closer) { closeQuietly(c) } // want CloseAll:"releases its parameter 0"

// WithDefault returns a nil cancel function when ctx already has a deadline.
func WithDefault(ctx context.Context) (context.Context, context.CancelFunc) { // want WithDefault:"returns an owned cancel-timer or nil in result 1"
	if _, ok := ctx.Deadline(); ok {
		return ctx, nil
	}
	return context.WithTimeout(ctx, time.Second)
}
