// Package lease holds acquired things (mutexes, sql rows, lock slots,
// distributed locks, tickers, context cancel funcs, response bodies) and
// whether every path releases them.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"time"

	"heldoutr7/stub"
)

// ErrClosed reports a closed subscription.
var ErrClosed = errors.New("nats: subscription closed")

// ErrSlowConsumer reports a subscription whose pending limit is reached.
var ErrSlowConsumer = errors.New("nats: slow consumer")

// Subscription buffers messages for one subscriber.
type Subscription struct {
	mu      sync.Mutex
	closed  bool
	pending int
	max     int
	msgs    chan []byte
}

// Deliver takes the subscription lock to check state, but the
// cancelled-context return leaves it locked; the next Deliver or Unsubscribe
// on this subscription blocks forever and the connection's read loop
// deadlocks.
// From: nats-io/nats.go#1364
// bug: leaseleak
func (s *Subscription) Deliver(ctx context.Context, msg []byte) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.pending >= s.max {
		s.mu.Unlock()
		return ErrSlowConsumer
	}
	s.pending++
	s.mu.Unlock()
	select {
	case s.msgs <- msg:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		s.pending--
		s.mu.Unlock()
		return ctx.Err()
	}
}

// DeliverUnlocked releases the lock on every early return.
// ok: leaseleak
func (s *Subscription) DeliverUnlocked(ctx context.Context, msg []byte) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.pending >= s.max {
		s.mu.Unlock()
		return ErrSlowConsumer
	}
	s.pending++
	s.mu.Unlock()
	select {
	case s.msgs <- msg:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		s.pending--
		s.mu.Unlock()
		return ctx.Err()
	}
}

// RunQuery never closes the rows. A full iteration closes them implicitly,
// but the Columns and Scan error returns (Scan fails with context canceled
// when the scrape is cut short) leave the connection checked out of the
// pool for the life of the process.
// From: newrelic/nri-flex#667
// bug: leaseleak
func RunQuery(ctx context.Context, db *sql.DB, q string) ([]map[string]any, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// RunQueryClosed defers rows.Close right after the successful query.
// ok: leaseleak
func RunQueryClosed(ctx context.Context, db *sql.DB, q string) ([]map[string]any, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// CtxMutex is a mutex whose Lock can be abandoned. Slot must be a channel
// with capacity 1; holding the lock means having sent into it.
type CtxMutex struct {
	Slot chan struct{}
}

// LockContext takes the slot and only then notices that the context is
// already cancelled. With a cancelled context and a free mutex the select
// may pick the send; LockContext then returns ctx.Err(), the caller treats
// the lock as not taken and never calls Unlock, and the mutex stays held.
// From: elastic/go-concert#12
// bug: leaseleak
func (m *CtxMutex) LockContext(ctx context.Context) error {
	select {
	case m.Slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		log.Printf("lock: context ended while acquiring: %v", err)
		return err
	}
	return nil
}

// LockContextChecked checks the context before trying, and reports
// success whenever the slot was actually taken.
// ok: leaseleak
func (m *CtxMutex) LockContextChecked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case m.Slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases a slot taken by a successful LockContext.
// ok: leaseleak
func (m *CtxMutex) Unlock() {
	select {
	case <-m.Slot:
	default:
		panic("lease: unlock of unlocked CtxMutex")
	}
}

// Profile is a user's profile.
type Profile struct {
	UserID string
	Name   string
}

// ProfileService updates profiles under a per-user distributed lock.
type ProfileService struct {
	Locks *stub.DistLock
	Load  func(ctx context.Context, id string) (*Profile, error)
	Save  func(ctx context.Context, p *Profile) error
}

// Update releases the lock in a deferred closure using the request
// context. When the client disconnects mid-request that context is already
// cancelled, the unlock call fails, the error is only logged, and the
// user's profile stays locked until the key's TTL expires.
// From: authgear/authgear-server#5721
// bug: leaseleak
func (s *ProfileService) Update(ctx context.Context, userID string, fn func(*Profile) error) error {
	key := "profile:" + userID
	if err := s.Locks.Lock(ctx, key); err != nil {
		return fmt.Errorf("lock %s: %w", key, err)
	}
	defer func() {
		if err := s.Locks.Unlock(ctx, key); err != nil {
			log.Printf("unlock %s: %v", key, err)
		}
	}()
	p, err := s.Load(ctx, userID)
	if err != nil {
		return err
	}
	if err := fn(p); err != nil {
		return err
	}
	return s.Save(ctx, p)
}

// UpdateReleased unlocks with a context that keeps the request's values but
// not its cancellation, bounded by its own short timeout.
// ok: leaseleak
func (s *ProfileService) UpdateReleased(ctx context.Context, userID string, fn func(*Profile) error) error {
	key := "profile:" + userID
	if err := s.Locks.Lock(ctx, key); err != nil {
		return fmt.Errorf("lock %s: %w", key, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if err := s.Locks.Unlock(uctx, key); err != nil {
			log.Printf("unlock %s: %v", key, err)
		}
	}()
	p, err := s.Load(ctx, userID)
	if err != nil {
		return err
	}
	if err := fn(p); err != nil {
		return err
	}
	return s.Save(ctx, p)
}

// Answer is a resolved mDNS record.
type Answer struct {
	Name string
	Addr string
}

// Resolver is an mDNS querier.
type Resolver struct {
	Send     func(name string) error
	Answers  chan Answer
	Interval time.Duration
}

// Query re-sends the question on a ticker until answered. The ticker is
// stopped only on the answered path: the send-error and ctx.Done returns
// leave it running, and a resolver that times out on every lookup
// accumulates live tickers.
// From: pion/mdns#73
// bug: leaseleak
func (r *Resolver) Query(ctx context.Context, name string) (string, error) {
	ticker := time.NewTicker(r.Interval)
	if err := r.Send(name); err != nil {
		return "", fmt.Errorf("mdns: send: %w", err)
	}
	for {
		select {
		case <-ticker.C:
			if err := r.Send(name); err != nil {
				log.Printf("mdns: resend %s: %v", name, err)
			}
		case <-ctx.Done():
			return "", ctx.Err()
		case a := <-r.Answers:
			if a.Name == name {
				ticker.Stop()
				return a.Addr, nil
			}
		}
	}
}

// QueryStopped defers ticker.Stop right after creating it.
// ok: leaseleak
func (r *Resolver) QueryStopped(ctx context.Context, name string) (string, error) {
	ticker := time.NewTicker(r.Interval)
	defer ticker.Stop()
	if err := r.Send(name); err != nil {
		return "", fmt.Errorf("mdns: send: %w", err)
	}
	for {
		select {
		case <-ticker.C:
			if err := r.Send(name); err != nil {
				log.Printf("mdns: resend %s: %v", name, err)
			}
		case <-ctx.Done():
			return "", ctx.Err()
		case a := <-r.Answers:
			if a.Name == name {
				return a.Addr, nil
			}
		}
	}
}

// Fetcher downloads modules, letting an admin abort in-flight downloads.
type Fetcher struct {
	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	Download func(ctx context.Context, mod string) ([]byte, error)
	Timeout  time.Duration
}

// Fetch registers the download's cancel func so Abort can stop it, but
// only the success path removes and calls it. Every failed download leaves
// its entry in the map and its timeout context alive until the timer
// fires, and the map grows with each failure.
// From: gomods/athens#824
// bug: leaseleak
func (f *Fetcher) Fetch(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	data, err := f.Download(ctx, mod)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", mod, err)
	}
	f.mu.Lock()
	delete(f.inflight, mod)
	f.mu.Unlock()
	cancel()
	return data, nil
}

// FetchReleased removes the entry and cancels in a deferred closure, on
// every path.
// ok: leaseleak
func (f *Fetcher) FetchReleased(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, mod)
		f.mu.Unlock()
		cancel()
	}()
	data, err := f.Download(ctx, mod)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", mod, err)
	}
	return data, nil
}

// Pool hands out leased worker contexts.
type Pool struct {
	Sem     *stub.DistLock
	Timeout time.Duration
}

// Checkout derives a bounded context and returns its cancel func without
// calling it on success. That is a hand-off, not a leak: the caller owns
// the lease and must call the returned func, and the error path cancels
// before returning.
// ok: leaseleak
func (p *Pool) Checkout(ctx context.Context, worker string) (context.Context, context.CancelFunc, error) {
	wctx, cancel := context.WithTimeout(ctx, p.Timeout)
	if err := p.Sem.Lock(wctx, worker); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("checkout %s: %w", worker, err)
	}
	release := func() {
		if err := p.Sem.Unlock(context.WithoutCancel(wctx), worker); err != nil {
			log.Printf("release %s: %v", worker, err)
		}
		cancel()
	}
	return wctx, release, nil
}

// OpenBlob returns the response body to the caller without closing it on
// success, which is the contract (the caller closes the ReadCloser); the
// non-200 path drains and closes the body before returning the error.
// ok: leaseleak
func OpenBlob(ctx context.Context, client *http.Client, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("get %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}
