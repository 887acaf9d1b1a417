// Package untracked holds held-out cases for the untrackedgo check.
package untracked

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Store is the persistence dependency shared by the services in this package.
type Store interface {
	Lookup(ctx context.Context, key string) ([]byte, bool, error)
	Save(ctx context.Context, key string, val []byte) error
}

// LeaseBackend renews and releases distributed locks.
type LeaseBackend interface {
	Refresh(ctx context.Context, key string, ttl time.Duration) error
	Release(ctx context.Context, key string) error
}

// errSink collects errors produced by background goroutines so the owner
// can report them when it shuts down.
type errSink struct {
	mu   sync.Mutex
	errs []error
}

// add records err if it is non-nil.
// ok: untrackedgo
func (s *errSink) add(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}

// join returns every recorded error.
// ok: untrackedgo
func (s *errSink) join() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}
