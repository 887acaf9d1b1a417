// Package folded holds foldedtimeout cases: cancellation whose identity is
// lost on the way up, shaped after reports of gateways answering 500 or 504
// on client disconnects, `%v` wrapping that breaks errors.Is(err,
// context.DeadlineExceeded), and == comparisons against wrapped sentinels.
package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"
)

var (
	ErrTimeout  = errors.New("operation timed out")
	ErrStopped  = errors.New("worker stopped")
	ErrNotFound = errors.New("not found")
)

type Record struct{ Key, Val string }

type Backend interface {
	Read(ctx context.Context, key string) (Record, error)
	Write(ctx context.Context, r Record) error
	Scan(ctx context.Context, from string, n int) ([]Record, error)
}

type Client struct {
	be   Backend
	http *http.Client
}

// bug: foldedtimeout
func (c *Client) Get(ctx context.Context, key string) (Record, error) {
	r, err := c.be.Read(ctx, key)
	if err != nil {
		return Record{}, fmt.Errorf("read %q: %v", key, err)
	}
	return r, nil
}

// bug: foldedtimeout
func (c *Client) Put(ctx context.Context, r Record) error {
	if err := c.be.Write(ctx, r); err != nil {
		return errors.New("write failed: " + err.Error())
	}
	return nil
}

// bug: foldedtimeout
func (c *Client) Await(ctx context.Context, ch <-chan Record) (Record, error) {
	select {
	case <-ctx.Done():
		return Record{}, ErrTimeout
	case r := <-ch:
		return r, nil
	}
}

// bug: foldedtimeout
func (c *Client) IsCanceled(ctx context.Context, key string) bool {
	_, err := c.be.Read(ctx, key)
	return err == context.Canceled
}

// bug: foldedtimeout
func (c *Client) Scan(ctx context.Context, from string) ([]Record, error) {
	rs, err := c.be.Scan(ctx, from, 100)
	if err != nil {
		return nil, fmt.Errorf("scan from %s: %s", from, err)
	}
	return rs, nil
}

// bug: foldedtimeout
func (c *Client) Fetch(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", url, err)
	}
	return resp, nil
}

// bug: foldedtimeout
func (c *Client) StatusFor(ctx context.Context, key string) int {
	_, err := c.be.Read(ctx, key)
	switch err {
	case nil:
		return http.StatusOK
	case context.DeadlineExceeded:
		return http.StatusGatewayTimeout
	default:
		return http.StatusInternalServerError
	}
}

// bug: foldedtimeout
func (c *Client) Wait(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("wait aborted")
	}
}

// bug: foldedtimeout
func (c *Client) Classify(ctx context.Context, key string) error {
	_, err := c.be.Read(ctx, key)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// bug: foldedtimeout
func (c *Client) Retryable(ctx context.Context, r Record) bool {
	err := c.be.Write(ctx, r)
	return err != nil && strings.Contains(err.Error(), "context deadline exceeded")
}

// bug: foldedtimeout
func (c *Client) Load(ctx context.Context, keys []string) (map[string]Record, error) {
	out := map[string]Record{}
	for _, k := range keys {
		r, err := c.be.Read(ctx, k)
		if err != nil {
			return nil, fmt.Errorf(err.Error())
		}
		out[k] = r
	}
	return out, nil
}

// OpError records a failed backend operation.
type OpError struct {
	Op  string
	Err error
}

// ok: foldedtimeout
func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

// bug: foldedtimeout
func (c *Client) Delete(ctx context.Context, key string) error {
	if err := c.be.Write(ctx, Record{Key: key}); err != nil {
		return &OpError{Op: "delete", Err: err}
	}
	return nil
}

// bug: foldedtimeout
func (c *Client) Poll(ctx context.Context, key string, results chan<- error) {
	_, err := c.be.Read(ctx, key)
	if err != nil {
		results <- fmt.Errorf("poll %s: %v", key, err)
		return
	}
	results <- nil
}

// bug: foldedtimeout
func (c *Client) Stopped(ctx context.Context, key string) error {
	if _, err := c.be.Read(ctx, key); err != nil {
		if err != context.Canceled {
			return err
		}
		return ErrStopped
	}
	return nil
}

// bug: foldedtimeout
func (c *Client) Scan2(ctx context.Context, from string) ([]Record, error) {
	rs, err := c.be.Scan(ctx, from, 10)
	if err != nil {
		return nil, errors.New(fmt.Sprintf("scan: %v", err))
	}
	return rs, nil
}

// ---- near-misses ----

// ok: foldedtimeout
func (c *Client) GetW(ctx context.Context, key string) (Record, error) {
	r, err := c.be.Read(ctx, key)
	if err != nil {
		return Record{}, fmt.Errorf("read %q: %w", key, err)
	}
	return r, nil
}

// ok: foldedtimeout
func (c *Client) AwaitCause(ctx context.Context, ch <-chan Record) (Record, error) {
	select {
	case <-ctx.Done():
		return Record{}, fmt.Errorf("%w: %w", ErrTimeout, context.Cause(ctx))
	case r := <-ch:
		return r, nil
	}
}

// ok: foldedtimeout
func (c *Client) IsCanceledIs(ctx context.Context, key string) bool {
	_, err := c.be.Read(ctx, key)
	return errors.Is(err, context.Canceled)
}

// ok: foldedtimeout
func (c *Client) GetLogged(ctx context.Context, key string) (Record, error) {
	r, err := c.be.Read(ctx, key)
	if err != nil {
		log.Printf("read %q: %v", key, err)
		return Record{}, err
	}
	return r, nil
}

// ok: foldedtimeout
func (c *Client) Bounded(key string) (Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ch := make(chan Record, 1)
	go func() {
		r, _ := c.be.Read(ctx, key)
		ch <- r
	}()
	select {
	case <-ctx.Done():
		return Record{}, ErrTimeout
	case r := <-ch:
		return r, nil
	}
}

// ok: foldedtimeout
func (c *Client) StatusForIs(ctx context.Context, key string) int {
	_, err := c.be.Read(ctx, key)
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499
	default:
		return http.StatusInternalServerError
	}
}

// ok: foldedtimeout
func (c *Client) CtxErrCompare(ctx context.Context) bool {
	return ctx.Err() == context.Canceled
}

// ok: foldedtimeout
func (c *Client) DeadlineOnly(ctx context.Context, key string) error {
	_, err := c.be.Read(ctx, key)
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// ok: foldedtimeout
func (c *Client) Joined(ctx context.Context, recs []Record) error {
	var errs []error
	for _, r := range recs {
		if err := c.be.Write(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WrapError records a failed operation and keeps its cause.
type WrapError struct {
	Op  string
	Err error
}

// ok: foldedtimeout
func (e *WrapError) Error() string { return e.Op + ": " + e.Err.Error() }

// ok: foldedtimeout
func (e *WrapError) Unwrap() error { return e.Err }

// ok: foldedtimeout
func (c *Client) DeleteW(ctx context.Context, key string) error {
	if err := c.be.Write(ctx, Record{Key: key}); err != nil {
		return &WrapError{Op: "delete", Err: err}
	}
	return nil
}

// ok: foldedtimeout
func (c *Client) CheckedFirst(ctx context.Context, key string) error {
	_, err := c.be.Read(ctx, key)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("read %s: %v", key, err)
	}
	return nil
}

// ok: foldedtimeout
func (c *Client) WaitCtx(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ok: foldedtimeout
func (c *Client) NotFound(ctx context.Context, key string) (bool, error) {
	_, err := c.be.Read(ctx, key)
	if err == ErrNotFound {
		return true, nil
	}
	return false, err
}

// ok: foldedtimeout
func (c *Client) Describe(ctx context.Context, key string) string {
	_, err := c.be.Read(ctx, key)
	if err != nil {
		return fmt.Sprintf("unavailable: %v", err)
	}
	return "ok"
}
