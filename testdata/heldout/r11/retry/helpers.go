package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"
)

// ExponentialBackOff yields growing delays up to MaxElapsed in total.
type ExponentialBackOff struct {
	Initial    time.Duration
	Max        time.Duration
	MaxElapsed time.Duration
	start      time.Time
	current    time.Duration
}

// Reset restarts the backoff sequence.
// ok: retrycancel
func (b *ExponentialBackOff) Reset() {
	b.start = time.Now()
	b.current = b.Initial
}

// Next returns the next delay, or false once MaxElapsed has passed.
// ok: retrycancel
func (b *ExponentialBackOff) Next() (time.Duration, bool) {
	if time.Since(b.start) > b.MaxElapsed {
		return 0, false
	}
	d := b.current
	b.current = min(b.current*2, b.Max)
	return d, true
}

// RetryNotifyContext runs op until it succeeds, the backoff gives up or ctx
// ends, reporting each failure to notify.
// ok: retrycancel
func RetryNotifyContext(ctx context.Context, op func() error, b *ExponentialBackOff, notify func(error, time.Duration)) error {
	b.Reset()
	for {
		err := op()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), err)
		}
		next, ok := b.Next()
		if !ok {
			return err
		}
		if notify != nil {
			notify(err, next)
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}

type objectPutter interface {
	Put(ctx context.Context, key string, data []byte) error
}

// Uploader stores artifacts in an object store.
type Uploader struct {
	store  objectPutter
	policy ExponentialBackOff
}

// Upload stores data under key, retrying transient failures until the
// backoff's elapsed-time budget is spent.
// From: cenkalti/backoff#32
// bug: retrycancel
func (u *Uploader) Upload(ctx context.Context, key string, data []byte) error {
	b := u.policy
	b.Reset()
	for {
		err := u.store.Put(ctx, key, data)
		if err == nil {
			return nil
		}
		next, ok := b.Next()
		if !ok {
			return fmt.Errorf("upload %s: %w", key, err)
		}
		log.Printf("upload %s: %v; retrying in %s", key, err, next)
		time.Sleep(next)
	}
}

// UploadNearMiss uses the context-aware retry helper.
// ok: retrycancel
func (u *Uploader) UploadNearMiss(ctx context.Context, key string, data []byte) error {
	b := u.policy
	err := RetryNotifyContext(ctx, func() error {
		return u.store.Put(ctx, key, data)
	}, &b, func(err error, next time.Duration) {
		log.Printf("upload %s: %v; retrying in %s", key, err, next)
	})
	if err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	return nil
}

// Code is an RPC status code.
type Code int

// RPC status codes used by the cache client.
const (
	OK Code = iota
	Canceled
	Unknown
	DeadlineExceeded
	Unavailable
	Internal
)

// StatusError carries an RPC status code.
type StatusError struct {
	Code Code
	Msg  string
}

// ok: retrycancel
func (e *StatusError) Error() string { return fmt.Sprintf("rpc error: code=%d desc=%s", e.Code, e.Msg) }

// ok: retrycancel
func codeOf(err error) Code {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return DeadlineExceeded
	}
	return Unknown
}

// Invoker performs one unary RPC.
type Invoker func(ctx context.Context, method string, req, reply any) error

// FixedCountRetry retries a fixed set of status codes a fixed number of times.
type FixedCountRetry struct {
	MaxAttempts    int
	RetryableCodes []Code
}

// ok: retrycancel
func (s FixedCountRetry) shouldRetry(code Code, attempt int) bool {
	if attempt >= s.MaxAttempts {
		return false
	}
	for _, c := range s.RetryableCodes {
		if c == code {
			return true
		}
	}
	return false
}

// DefaultCacheRetry is the retry strategy used by the cache client.
var DefaultCacheRetry = FixedCountRetry{
	MaxAttempts:    3,
	RetryableCodes: []Code{Unavailable, Internal, Canceled},
}

// RetryInterceptor re-invokes a unary RPC while the strategy allows it.
// From: momentohq/client-sdk-go#561
// bug: retrycancel
func RetryInterceptor(ctx context.Context, method string, req, reply any, invoke Invoker) error {
	strategy := DefaultCacheRetry
	for attempt := 1; ; attempt++ {
		err := invoke(ctx, method, req, reply)
		if err == nil {
			return nil
		}
		code := codeOf(err)
		if !strategy.shouldRetry(code, attempt) {
			return err
		}
		log.Printf("%s: attempt %d failed with code %d, retrying", method, attempt, code)
	}
}

// RetryInterceptorNearMiss never retries once the caller has given up.
// ok: retrycancel
func RetryInterceptorNearMiss(ctx context.Context, method string, req, reply any, invoke Invoker) error {
	strategy := FixedCountRetry{MaxAttempts: 3, RetryableCodes: []Code{Unavailable, Internal}}
	for attempt := 1; ; attempt++ {
		err := invoke(ctx, method, req, reply)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		code := codeOf(err)
		if !strategy.shouldRetry(code, attempt) {
			return err
		}
		log.Printf("%s: attempt %d failed with code %d, retrying", method, attempt, code)
	}
}

// CallSettings configure per-call timeouts and retries.
type CallSettings struct {
	PerAttemptTimeout time.Duration
	MaxAttempts       int
	Pause             time.Duration
}

// ok: retrycancel
func retryableForAsset(err error) bool {
	switch codeOf(err) {
	case Unavailable, DeadlineExceeded:
		return true
	}
	return false
}

// Invoke calls api with a per-attempt deadline, retrying retryable failures.
// From: googleapis/gax-go#420
// bug: retrycancel
func Invoke(ctx context.Context, api func(context.Context) error, s CallSettings) error {
	var err error
	for attempt := 1; attempt <= s.MaxAttempts; attempt++ {
		actx, cancel := context.WithTimeout(ctx, s.PerAttemptTimeout)
		err = api(actx)
		cancel()
		if err == nil {
			return nil
		}
		if !retryableForAsset(err) {
			return err
		}
		log.Printf("invoke: attempt %d: %v", attempt, err)
		pause := time.NewTimer(s.Pause * time.Duration(attempt))
		<-pause.C
	}
	return err
}

// InvokeNearMiss retries per-attempt deadlines only while the parent lives.
// ok: retrycancel
func InvokeNearMiss(ctx context.Context, api func(context.Context) error, s CallSettings) error {
	var err error
	for attempt := 1; attempt <= s.MaxAttempts; attempt++ {
		actx, cancel := context.WithTimeout(ctx, s.PerAttemptTimeout)
		err = api(actx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), err)
		}
		if !retryableForAsset(err) {
			return err
		}
		log.Printf("invoke: attempt %d: %v", attempt, err)
		pause := time.NewTimer(s.Pause * time.Duration(attempt))
		select {
		case <-ctx.Done():
			pause.Stop()
			return errors.Join(ctx.Err(), err)
		case <-pause.C:
		}
	}
	return err
}

type jobCatalog interface {
	Register(ctx context.Context, job string) error
}

// Scheduler registers incremental-sync jobs with the catalog.
type Scheduler struct {
	catalog jobCatalog
	wait    time.Duration
}

// registerWithRetry registers job, calling itself again after a failure.
// From: matrixorigin/matrixone#25655
// bug: retrycancel
func (s *Scheduler) registerWithRetry(ctx context.Context, job string, left int) error {
	err := s.catalog.Register(ctx, job)
	if err == nil {
		return nil
	}
	if left <= 0 {
		return fmt.Errorf("register %s: %w", job, err)
	}
	log.Printf("register %s: %v (%d attempts left)", job, err, left)
	time.Sleep(s.wait)
	return s.registerWithRetry(ctx, job, left-1)
}

// registerWithRetryNearMiss stops recursing once ctx is done.
// ok: retrycancel
func (s *Scheduler) registerWithRetryNearMiss(ctx context.Context, job string, left int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.catalog.Register(ctx, job)
	if err == nil {
		return nil
	}
	if left <= 0 {
		return fmt.Errorf("register %s: %w", job, err)
	}
	log.Printf("register %s: %v (%d attempts left)", job, err, left)
	t := time.NewTimer(s.wait)
	select {
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	case <-t.C:
	}
	return s.registerWithRetryNearMiss(ctx, job, left-1)
}

// SleepContext pauses for d or until ctx is done.
// ok: retrycancel
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Do retries fn up to attempts times with linear backoff.
// ok: retrycancel
func Do[T any](ctx context.Context, attempts int, step time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var lastErr error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			if err := SleepContext(ctx, step*time.Duration(i)); err != nil {
				return zero, errors.Join(err, lastErr)
			}
		}
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		lastErr = err
	}
	return zero, fmt.Errorf("after %d attempts: %w", attempts, lastErr)
}

// WaitForReady polls probe until it reports ready or the deadline passes.
// ok: retrycancel
func WaitForReady(ctx context.Context, every, within time.Duration, probe func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		ready, err := probe(ctx)
		if err != nil {
			log.Printf("readiness probe: %v", err)
		} else if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s: %w", within, ctx.Err())
		case <-t.C:
		}
	}
}

// Redial reconnects with a bounded number of attempts, retrying per-attempt
// timeouts but never after the caller's context has ended.
// ok: retrycancel
func Redial[C any](ctx context.Context, attempts int, perTry time.Duration, dial func(context.Context) (C, error)) (C, error) {
	var zero C
	var errs []error
	for i := 0; i < attempts; i++ {
		tctx, cancel := context.WithTimeout(ctx, perTry)
		c, err := dial(tctx)
		cancel()
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			return zero, errors.Join(append([]error{ctx.Err()}, errs...)...)
		}
		if err := SleepContext(ctx, time.Duration(i+1)*100*time.Millisecond); err != nil {
			return zero, errors.Join(append([]error{err}, errs...)...)
		}
	}
	return zero, errors.Join(errs...)
}
