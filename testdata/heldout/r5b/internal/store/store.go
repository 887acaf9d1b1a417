// Package store is a small in-memory key/value client shared by the
// heldout packages. Every call that takes a context honours it the way a
// network client would: it returns ctx.Err() once the context is done.
package store

import (
	"context"
	"errors"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("store: key not found")

// ErrUnavailable is a transient backend failure worth retrying.
var ErrUnavailable = errors.New("store: backend unavailable")

// Record is one key/value pair with its revision.
type Record struct {
	Key   string
	Value []byte
	Rev   int64
}

// Client is a latency-simulating key/value client.
type Client struct {
	mu      sync.Mutex
	data    map[string]Record
	rev     int64
	latency time.Duration
	// FailNext makes the next n calls fail with ErrUnavailable.
	FailNext int
}

// NewClient returns an empty client whose calls take latency each.
// ok: swallowcancel
func NewClient(latency time.Duration) *Client {
	return &Client{data: make(map[string]Record), latency: latency}
}

// wait simulates the round trip, returning early with ctx.Err().
// ok: swallowcancel
func (c *Client) wait(ctx context.Context) error {
	if c.latency <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(c.latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// injected reports whether an injected transient failure should fire.
// ok: swallowcancel
func (c *Client) injected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.FailNext > 0 {
		c.FailNext--
		return true
	}
	return false
}

// Get returns the value stored under key.
// ok: swallowcancel
func (c *Client) Get(ctx context.Context, key string) ([]byte, error) {
	if err := c.wait(ctx); err != nil {
		return nil, err
	}
	if c.injected() {
		return nil, ErrUnavailable
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.data[key]
	if !ok {
		return nil, ErrNotFound
	}
	return r.Value, nil
}

// Put stores value under key.
// ok: swallowcancel
func (c *Client) Put(ctx context.Context, key string, value []byte) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	if c.injected() {
		return ErrUnavailable
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rev++
	c.data[key] = Record{Key: key, Value: value, Rev: c.rev}
	return nil
}

// Delete removes key; deleting a missing key is not an error.
// ok: swallowcancel
func (c *Client) Delete(ctx context.Context, key string) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.data, key)
	return nil
}

// keys returns the sorted keys under prefix.
// ok: swallowcancel
func (c *Client) keys(prefix string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k := range c.data {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Scan yields the records under prefix one page at a time. A failed page
// (including a done context) is yielded as a zero Record and the error,
// after which the sequence ends.
// ok: swallowcancel
func (c *Client) Scan(ctx context.Context, prefix string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for _, k := range c.keys(prefix) {
			if err := c.wait(ctx); err != nil {
				yield(Record{}, err)
				return
			}
			c.mu.Lock()
			r, ok := c.data[k]
			c.mu.Unlock()
			if !ok {
				continue
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Stream sends the records under prefix on the first channel and closes it.
// If the stream stops early, the reason is sent on the second channel
// (buffered, so the producer never blocks on it); it is closed afterwards.
// ok: swallowcancel
func (c *Client) Stream(ctx context.Context, prefix string) (<-chan Record, <-chan error) {
	records := make(chan Record)
	errs := make(chan error, 1)
	keys := c.keys(prefix)
	go func() {
		defer close(errs)
		defer close(records)
		for _, k := range keys {
			if err := c.wait(ctx); err != nil {
				errs <- err
				return
			}
			c.mu.Lock()
			r := c.data[k]
			c.mu.Unlock()
			select {
			case records <- r:
			case <-ctx.Done():
				errs <- ctx.Err()
				return
			}
		}
	}()
	return records, errs
}

// WatchResponse is one batch of watch events. When Canceled is set the
// channel is about to close and Err reports why.
type WatchResponse struct {
	Events   []Record
	Canceled bool
	err      error
}

// Err reports why a canceled watch stopped.
// ok: swallowcancel
func (r WatchResponse) Err() error { return r.err }

// Watch streams the current records under prefix as one response, then a
// final Canceled response carrying ctx.Err() once ctx is done.
// ok: swallowcancel
func (c *Client) Watch(ctx context.Context, prefix string) <-chan WatchResponse {
	ch := make(chan WatchResponse, 1)
	var initial []Record
	for _, k := range c.keys(prefix) {
		c.mu.Lock()
		initial = append(initial, c.data[k])
		c.mu.Unlock()
	}
	go func() {
		defer close(ch)
		select {
		case ch <- WatchResponse{Events: initial}:
		case <-ctx.Done():
		}
		<-ctx.Done()
		// ch has room for this final response unless the reader is gone,
		// in which case it is dropped rather than blocking.
		select {
		case ch <- WatchResponse{Canceled: true, err: ctx.Err()}:
		default:
		}
	}()
	return ch
}

// Sleep waits for d or until ctx is done, returning ctx.Err() in that case.
// ok: retrycancel
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// IsTransient reports whether err is a backend failure worth retrying.
// Context errors are never transient.
// ok: retrycancel
func IsTransient(err error) bool {
	return errors.Is(err, ErrUnavailable)
}

// LoadDefaults reads the built-in defaults under "defaults/". It has no
// caller context, so it bounds itself with its own five second budget.
// ok: detachedctx
func LoadDefaults(c *Client) (map[string][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return LoadDefaultsContext(ctx, c)
}

// LoadDefaultsContext is LoadDefaults bounded by the caller's context.
// ok: detachedctx
func LoadDefaultsContext(ctx context.Context, c *Client) (map[string][]byte, error) {
	out := make(map[string][]byte)
	for r, err := range c.Scan(ctx, "defaults/") {
		if err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(r.Key, "defaults/")] = r.Value
	}
	return out, nil
}
