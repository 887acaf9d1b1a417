package untracked

import (
	"context"
	"errors"
	"time"
)

// DistLock holds a distributed lock while a critical section runs.
type DistLock struct {
	backend LeaseBackend
	key     string
	ttl     time.Duration
}

// NewDistLock returns a lock for key with the given lease duration.
// ok: untrackedgo
func NewDistLock(b LeaseBackend, key string, ttl time.Duration) *DistLock {
	return &DistLock{backend: b, key: key, ttl: ttl}
}

// WithLock keeps the lease alive while fn runs. The refresher ranges over
// the ticker channel, which Stop never closes, so it never exits.
// From: i-love-flamingo/flamingo-commerce#290
// bug: untrackedgo
func (l *DistLock) WithLock(ctx context.Context, fn func(context.Context) error) error {
	ticker := time.NewTicker(l.ttl / 2)
	var sink errSink
	go func() {
		for range ticker.C {
			rctx, cancel := context.WithTimeout(ctx, l.ttl/2)
			sink.add(l.backend.Refresh(rctx, l.key, l.ttl))
			cancel()
		}
	}()

	err := fn(ctx)
	ticker.Stop()
	relErr := l.backend.Release(ctx, l.key)
	return errors.Join(err, relErr, sink.join())
}

// WithLockNearMiss stops the refresher through a channel and waits for it.
// ok: untrackedgo
func (l *DistLock) WithLockNearMiss(ctx context.Context, fn func(context.Context) error) error {
	ticker := time.NewTicker(l.ttl / 2)
	defer ticker.Stop()
	var sink errSink
	stop := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
				rctx, cancel := context.WithTimeout(ctx, l.ttl/2)
				sink.add(l.backend.Refresh(rctx, l.key, l.ttl))
				cancel()
			}
		}
	}()

	err := fn(ctx)
	close(stop)
	<-exited
	relErr := l.backend.Release(ctx, l.key)
	return errors.Join(err, relErr, sink.join())
}
