package libs

import (
	"context"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"k8s.io/apimachinery/pkg/util/wait"
)

func op() error { return nil }

// ---- positives ----

func BackoffRetry(ctx context.Context) error {
	return backoff.Retry(op, backoff.NewExponentialBackOff()) // want `backoff.Retry with a policy not bound to ctx keeps retrying after ctx is canceled`
}

func BackoffNotify(ctx context.Context, b backoff.BackOff) error {
	return backoff.RetryNotify(op, b, func(error, time.Duration) {}) // want `backoff.RetryNotify with a policy not bound to ctx`
}

func RetryGo(ctx context.Context) error {
	return retry.Do(op, retry.Attempts(5)) // want `retry.Do without retry.Context\(ctx\) keeps retrying`
}

func RetryGoData(ctx context.Context) (int, error) {
	return retry.DoWithData(func() (int, error) { return 1, nil }) // want `retry.DoWithData without retry.Context\(ctx\)`
}

func Poll(ctx context.Context) error {
	return wait.Poll(time.Second, time.Minute, func() (bool, error) { return true, nil }) // want `wait.Poll cannot be canceled and keeps polling after ctx is canceled; use wait.PollUntilContextTimeout`
}

func PollImmediate(ctx context.Context) error {
	return wait.PollImmediate(time.Second, time.Minute, func() (bool, error) { return true, nil }) // want `wait.PollImmediate cannot be canceled`
}

func PollInfinite(ctx context.Context) error {
	return wait.PollInfinite(time.Second, func() (bool, error) { return true, nil }) // want `use wait.PollUntilContextCancel`
}

func UntilNever(ctx context.Context) {
	wait.Until(func() {}, time.Second, wait.NeverStop) // want `wait.Until cannot be canceled.*use wait.UntilWithContext`
}

func Forever(ctx context.Context) {
	wait.Forever(func() {}, time.Second) // want `wait.Forever cannot be canceled`
}

func Exp(ctx context.Context) error {
	return wait.ExponentialBackoff(wait.Backoff{Steps: 5}, func() (bool, error) { return true, nil }) // want `use wait.ExponentialBackoffWithContext`
}

// ---- negatives ----

func BackoffCtx(ctx context.Context) error {
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

func BackoffCtxVar(ctx context.Context) error {
	b := backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
	return backoff.Retry(op, b)
}

func BackoffNoCtx() error {
	return backoff.Retry(op, backoff.NewExponentialBackOff())
}

func RetryGoCtx(ctx context.Context) error {
	return retry.Do(op, retry.Attempts(5), retry.Context(ctx))
}

func RetryGoOpts(ctx context.Context, opts []retry.Option) error {
	return retry.Do(op, opts...)
}

func PollCtx(ctx context.Context) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(context.Context) (bool, error) { return true, nil })
}

func UntilDone(ctx context.Context) {
	wait.Until(func() {}, time.Second, ctx.Done())
}

func UntilStop(ctx context.Context, stopCh <-chan struct{}) {
	wait.Until(func() {}, time.Second, stopCh)
}

func UntilCtx(ctx context.Context) {
	wait.UntilWithContext(ctx, func(context.Context) {}, time.Second)
}

func PollNoCtx() error {
	return wait.Poll(time.Second, time.Minute, func() (bool, error) { return true, nil })
}
