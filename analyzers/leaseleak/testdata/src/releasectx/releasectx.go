// Package releasectx holds deferred releases of what a context-bound call
// took, given the context the taking used.
package releasectx

import (
	"context"
	"errors"
	"time"
)

type Lease struct{ Nonce string }

func (l *Lease) Unlock(ctx context.Context) error  { return nil }
func (l *Lease) Refresh(ctx context.Context) error { return nil }

type Locker interface {
	Lock(ctx context.Context, key string, ttl time.Duration) (*Lease, error)
}

type API interface {
	AcquireLease(ctx context.Context, id string) (*Lease, error)
	ReleaseLease(ctx context.Context, id, nonce string) error
	Update(ctx context.Context, id string) error
}

type store struct {
	locks Locker
	api   API
	put   func(ctx context.Context, key string) error
}

func (s *store) Put(ctx context.Context, key string) (err error) {
	l, err := s.locks.Lock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	defer l.Unlock(ctx) // want `the deferred Unlock is given ctx, which has already ended when the function returns because ctx was canceled`
	return s.put(ctx, key)
}

func (s *store) Update(ctx context.Context, id string) (err error) {
	lease, err := s.api.AcquireLease(ctx, id)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := s.api.ReleaseLease(ctx, id, lease.Nonce); rerr != nil && err == nil { // want `the deferred ReleaseLease is given ctx`
			err = rerr
		}
	}()
	return s.api.Update(ctx, id)
}

// A child of the context ends with it.
func (s *store) PutTimed(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	l, err := s.locks.Lock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	defer func() { _ = l.Unlock(ctx) }() // want `the deferred Unlock is given ctx`
	return s.put(ctx, key)
}

// Near miss: the release gets a context that survives the caller's
// cancellation, bounded by a timeout of its own.
func (s *store) PutDetached(ctx context.Context, key string) (err error) {
	l, err := s.locks.Lock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(err, l.Unlock(uctx))
	}()
	return s.put(ctx, key)
}

// Near miss: a local made without the caller's cancellation.
func (s *store) PutLocal(ctx context.Context, key string) error {
	l, err := s.locks.Lock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	uctx := context.WithoutCancel(ctx)
	defer l.Unlock(uctx)
	return s.put(ctx, key)
}

// Near miss: taken with a context of its own, which the caller's
// cancellation does not end.
func (s *store) PutBackground(ctx context.Context, key string) error {
	bg := context.Background()
	l, err := s.locks.Lock(bg, key, time.Minute)
	if err != nil {
		return err
	}
	defer l.Unlock(bg)
	return s.put(ctx, key)
}

// Near miss: not a release (a refresh may fail with the request).
func (s *store) Touch(ctx context.Context, key string) error {
	l, err := s.locks.Lock(ctx, key, time.Minute)
	if err != nil {
		return err
	}
	defer l.Refresh(ctx)
	return s.put(ctx, key)
}
