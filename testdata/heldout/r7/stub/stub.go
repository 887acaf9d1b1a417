// Package stub holds small stand-ins for third-party APIs (a distributed
// lock, a stream store, a message type, a target-diff service and a few
// context-aware helpers) used by the batch packages. Every function here
// behaves as its comment says.
package stub

import (
	"context"
	"iter"
	"sync"
	"time"
)

// Sleep waits for d, or returns ctx.Err() as soon as ctx is done.
// ok: leaseleak
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryDo calls fn up to attempts times, sleeping delay between failures.
// Like many older retry libraries it takes no context and never stops early.
// ok: leaseleak
func RetryDo(attempts int, delay time.Duration, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
		if i < attempts-1 {
			time.Sleep(delay)
		}
	}
	return err
}

// RetryCtx calls fn up to attempts times, sleeping delay between failures,
// and returns as soon as ctx is done (checked before every attempt and
// during every wait).
// ok: leaseleak
func RetryCtx(ctx context.Context, attempts int, delay time.Duration, fn func(context.Context) error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err = fn(ctx); err == nil {
			return nil
		}
		if i < attempts-1 {
			if serr := Sleep(ctx, delay); serr != nil {
				return serr
			}
		}
	}
	return err
}

// DistLock is an in-memory stand-in for a Redis-backed lock. Lock and Unlock
// behave like network calls: once ctx is done they fail with ctx.Err()
// without touching the lock.
type DistLock struct {
	mu   sync.Mutex
	held map[string]bool
}

// NewDistLock returns an empty lock table.
// ok: leaseleak
func NewDistLock() *DistLock {
	return &DistLock{held: make(map[string]bool)}
}

// Lock takes key, polling until it is free or ctx is done.
// ok: leaseleak
func (l *DistLock) Lock(ctx context.Context, key string) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.mu.Lock()
		if !l.held[key] {
			l.held[key] = true
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		if err := Sleep(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
}

// Unlock releases key; if ctx is already done the "request" fails and the
// key stays held.
// ok: leaseleak
func (l *DistLock) Unlock(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	delete(l.held, key)
	l.mu.Unlock()
	return nil
}

// Held reports whether key is currently locked.
// ok: leaseleak
func (l *DistLock) Held(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[key]
}

// GeneratePrimes returns the first n primes, or ctx.Err() if ctx is done
// before it finishes.
// ok: leaseleak
func GeneratePrimes(ctx context.Context, n int) ([]uint64, error) {
	var out []uint64
	for c := uint64(2); len(out) < n; c++ {
		if c%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if isPrime(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// ok: leaseleak
func isPrime(c uint64) bool {
	for d := uint64(2); d*d <= c; d++ {
		if c%d == 0 {
			return false
		}
	}
	return c >= 2
}

// Walk yields each path in turn. Once ctx is done it yields the current
// path together with ctx.Err() and stops.
// ok: leaseleak
func Walk(ctx context.Context, paths []string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, p := range paths {
			if err := ctx.Err(); err != nil {
				yield(p, err)
				return
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// Message is a unit of publishing that carries the context of the code that
// produced it, like watermill's message.Message.
type Message struct {
	ctx     context.Context
	UUID    string
	Payload []byte
}

// NewMessage binds payload to ctx.
// ok: leaseleak
func NewMessage(ctx context.Context, uuid string, payload []byte) *Message {
	return &Message{ctx: ctx, UUID: uuid, Payload: payload}
}

// Context returns the producer's context.
// ok: leaseleak
func (m *Message) Context() context.Context {
	return m.ctx
}

// Stream is an in-memory append-only log standing in for a Redis stream.
type Stream struct {
	mu      sync.Mutex
	entries map[string][][]byte
}

// NewStream returns an empty stream store.
// ok: leaseleak
func NewStream() *Stream {
	return &Stream{entries: make(map[string][][]byte)}
}

// XAdd appends payload to topic, or fails with ctx.Err() if ctx is done.
// ok: leaseleak
func (s *Stream) XAdd(ctx context.Context, topic string, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	s.entries[topic] = append(s.entries[topic], payload)
	s.mu.Unlock()
	return nil
}

// ChangedTargets computes the build targets changed since base. It creates
// its own background context, so nothing the caller does can stop it.
// ok: leaseleak
func ChangedTargets(repo, base string) ([]string, error) {
	return ChangedTargetsContext(context.Background(), repo, base)
}

// ChangedTargetsContext is ChangedTargets bounded by ctx.
// ok: leaseleak
func ChangedTargetsContext(ctx context.Context, repo, base string) ([]string, error) {
	if err := Sleep(ctx, 50*time.Millisecond); err != nil {
		return nil, err
	}
	return []string{repo + "//...@" + base}, nil
}
