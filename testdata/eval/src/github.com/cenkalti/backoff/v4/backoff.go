// Package backoff is a stub of github.com/cenkalti/backoff/v4 for the corpus.
package backoff

import (
	"context"
	"time"
)

// BackOff is a backoff policy.
type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

// Stop indicates that no more retries should be made.
const Stop time.Duration = -1

// ExponentialBackOff is an exponential policy.
type ExponentialBackOff struct{ cur time.Duration }

// NewExponentialBackOff returns a policy with default settings.
func NewExponentialBackOff() *ExponentialBackOff {
	return &ExponentialBackOff{cur: 100 * time.Millisecond}
}

// NextBackOff returns the next pause.
func (b *ExponentialBackOff) NextBackOff() time.Duration { b.cur *= 2; return b.cur }

// Reset resets the policy.
func (b *ExponentialBackOff) Reset() { b.cur = 100 * time.Millisecond }

// BackOffContext is a policy that stops when its context ends.
type BackOffContext interface {
	BackOff
	Context() context.Context
}

type backOffContext struct {
	BackOff
	ctx context.Context
}

func (b *backOffContext) Context() context.Context { return b.ctx }

// WithContext returns a policy that stops when ctx ends.
func WithContext(b BackOff, ctx context.Context) BackOffContext {
	return &backOffContext{BackOff: b, ctx: ctx}
}

// Operation is retried by Retry.
type Operation func() error

// Retry runs o until it succeeds or b says Stop, sleeping in between.
func Retry(o Operation, b BackOff) error {
	for {
		err := o()
		if err == nil {
			return nil
		}
		d := b.NextBackOff()
		if d == Stop {
			return err
		}
		if bc, ok := b.(BackOffContext); ok {
			select {
			case <-bc.Context().Done():
				return bc.Context().Err()
			case <-time.After(d):
			}
			continue
		}
		time.Sleep(d)
	}
}
