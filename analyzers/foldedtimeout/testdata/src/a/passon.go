package a

import (
	"context"
	"errors"
	"fmt"
	"log"
)

// ---- a new error handed on from a Done branch ----

type job struct {
	fail func(error)
	err  error
	done chan struct{}
}

// A job aborted with a made-up error: whoever reads it sees a failure.
func (j *job) watch(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(errors.New("context done")) // want `errors.New\("context done"\), passed to j.fail, replaces ctx's end with a new error`
	}
}

// A worker reporting on its error channel.
func reportDone(ctx context.Context, errc chan<- error, in <-chan int) {
	for {
		select {
		case <-in:
		case <-ctx.Done():
			errc <- fmt.Errorf("worker %d stopped", 3) // want `sent on errc, replaces ctx's end with a new error`
			return
		}
	}
}

// A job recording why it ended, after testing the context.
func (j *job) check(ctx context.Context) {
	if ctx.Err() != nil {
		j.err = errors.New("aborted") // want `stored in j.err, replaces ctx's end with a new error`
		return
	}
}

// A timeout sentinel handed on.
func (j *job) watchTimeout(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(ErrTimeout) // want `ErrTimeout, passed to j.fail, reports ctx's end as a timeout`
	}
}

// Near-miss: the context's error is handed on.
func (j *job) watchOK(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(ctx.Err())
	}
}

// Near-miss: the cause is wrapped.
func (j *job) watchWrapped(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(fmt.Errorf("context done: %w", context.Cause(ctx)))
	}
}

// Near-miss: only logged.
func (j *job) watchLogged(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		log.Print(errors.New("context done"))
	}
}

// Near-miss: a sentinel of the receiver's own vocabulary, not a timeout.
func (j *job) watchStopped(ctx context.Context) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(ErrStopped)
	}
}

// Near-miss: a local variable is not passing on.
func (j *job) watchLocal(ctx context.Context) error {
	var err error
	select {
	case <-j.done:
	case <-ctx.Done():
		err = errors.New("context done")
	}
	return err
}

// Near-miss: a context that can only time out (WithTimeout of Background).
func (j *job) watchTimer() {
	ctx, cancel := context.WithTimeout(context.Background(), 1)
	defer cancel()
	select {
	case <-j.done:
	case <-ctx.Done():
		j.fail(errors.New("gave up"))
	}
}

// Near-miss: a test for Canceled alone may name the end.
func (j *job) checkCanceled(ctx context.Context, err error) {
	if errors.Is(err, context.Canceled) {
		j.fail(errors.New("canceled by user"))
	}
}
