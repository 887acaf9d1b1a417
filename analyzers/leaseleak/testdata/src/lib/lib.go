// Package lib holds helpers whose ownership crosses into package app.
package lib

import (
	"context"
	"io"
	"net/http"
	"os"
	"time"
)

// Drain reads and closes the body of resp.
func Drain(resp *http.Response) { // want Drain:"releases its parameter 0"
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// CloseAll closes every closer.
func CloseAll(cs ...io.Closer) { // want CloseAll:"releases its parameter 0"
	for _, c := range cs {
		c.Close()
	}
}

// Count only reads.
func Count(r io.Reader) int {
	b, _ := io.ReadAll(r)
	return len(b)
}

// OpenConfig returns a file its caller must close.
func OpenConfig(dir string) (*os.File, error) { // want OpenConfig:"returns an owned file in result 0"
	f, err := os.Open(dir + "/config")
	if err != nil {
		return nil, err
	}
	return f, nil
}

// WithBudget returns a context and its cancel function.
func WithBudget(ctx context.Context) (context.Context, context.CancelFunc) { // want WithBudget:"returns an owned cancel-timer in result 1"
	return context.WithTimeout(ctx, time.Second)
}

// Fetch returns a response its caller must close.
func Fetch(url string) (*http.Response, error) { // want Fetch:"returns an owned body in result 0"
	return http.Get(url)
}

// Pool keeps the connections it dials; it does not return owned leases.
type Pool struct{ files []*os.File }

func (p *Pool) Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p.files = append(p.files, f)
	return f, nil
}

func (p *Pool) Close() {
	for _, f := range p.files {
		f.Close()
	}
}
