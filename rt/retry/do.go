package retry

import (
	"context"
	"errors"
	"math/rand"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
	"github.com/cancelcheck/cancelcheck/rt/wait"
)

// ErrExhausted is matched by the error of [Do] when it gave up because the
// attempt or elapsed-time budget of its [Policy] ran out.
var ErrExhausted = errors.New("retry budget exhausted")

// ErrAttemptTimeout is the cause recorded on an attempt's context when
// [Policy.PerAttempt] runs out. An attempt's error is wrapped to match it
// when the attempt's own timeout, and not the caller's context, ended it.
var ErrAttemptTimeout = errors.New("attempt timed out")

// Do calls f until it returns nil, returns an error marked [Permanent], the
// budget of p runs out, or ctx ends. It returns nil on success.
//
// Each call of f gets a context derived from ctx, limited by
// p.PerAttempt when that is set; the context is canceled when f returns,
// so f must not keep it. Between attempts Do waits [Policy.Delay] and
// returns as soon as ctx ends.
//
// On a permanent error Do returns the error passed to [Permanent]. When
// ctx ends, Do returns an [*Error] matching both the last attempt's error
// (if there was an attempt) and [stop.Err](ctx) under [errors.Is]; it
// never starts another attempt after ctx ends. When the budget runs out it
// returns an [*Error] matching the last attempt's error and
// [ErrExhausted].
func Do(ctx context.Context, p Policy, f func(ctx context.Context) error) error {
	_, err := DoValue(ctx, p, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, f(ctx)
	})
	return err
}

// DoValue is [Do] for an operation that returns a value. It returns the
// value of the successful attempt, or the zero value with an error.
func DoValue[T any](ctx context.Context, p Policy, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	start := time.Now()
	maxAttempts := p.maxAttempts()
	var last error
	for attempt := 1; ; attempt++ {
		if end := stop.Err(ctx); end != nil {
			return zero, &Error{Attempts: attempt - 1, Last: last, Cause: end}
		}
		v, err := try(ctx, p.PerAttempt, f)
		if err == nil {
			return v, nil
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			return zero, perm.err
		}
		last = err
		if end := stop.Err(ctx); end != nil {
			return zero, &Error{Attempts: attempt, Last: last, Cause: end}
		}
		if attempt >= maxAttempts {
			return zero, &Error{Attempts: attempt, Last: last, Cause: ErrExhausted}
		}
		d := p.Delay(attempt, nil)
		// Written so that a huge d cannot overflow the sum.
		if p.MaxElapsed > 0 && d > p.MaxElapsed-time.Since(start) {
			return zero, &Error{Attempts: attempt, Last: last, Cause: ErrExhausted}
		}
		if end := wait.Sleep(ctx, d); end != nil {
			return zero, &Error{Attempts: attempt, Last: last, Cause: end}
		}
	}
}

// try runs one attempt under its own timeout, if any.
func try[T any](ctx context.Context, timeout time.Duration, f func(ctx context.Context) (T, error)) (T, error) {
	if timeout > 0 {
		actx, cancel := context.WithTimeoutCause(ctx, timeout, ErrAttemptTimeout)
		defer cancel()
		v, err := f(actx)
		if err != nil && ctx.Err() == nil && actx.Err() != nil {
			err = stop.Wrap(actx, err)
		}
		return v, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return f(ctx)
}

func (p Policy) random() func() float64 {
	if p.Rand != nil {
		return p.Rand
	}
	return rand.Float64
}
