// Package rounds holds retry loops whose context check does not run, or
// does not act, on every round.
package rounds

import (
	"context"
	"errors"
	"log"
	"time"
)

type client struct{}

func (client) Send(ctx context.Context, msg string) error { return ctx.Err() }

var errBusy = errors.New("busy")

// A failed send logs and goes back to the head before the check.
func sendRouted(ctx context.Context, c client, msg string) error {
	for { // want `this retry loop in sendRouted checks ctx only on some rounds: a round that skips the check calls c.Send again after it fails`
		if err := c.Send(ctx, msg); err != nil {
			log.Printf("send: %v", err)
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Only a busy error goes back before the check; a canceled send is no busy
// error, so it reaches the check.
func sendBusyRouted(ctx context.Context, c client, msg string) error {
	for {
		err := c.Send(ctx, msg)
		if err == nil {
			return nil
		}
		if errors.Is(err, errBusy) {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// The check comes first, so every round passes it.
func sendCheckedFirst(ctx context.Context, c client, msg string) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := c.Send(ctx, msg)
		if err == nil {
			return nil
		}
		if errors.Is(err, errBusy) {
			continue
		}
	}
}

// The Done arm's break leaves only the select: the loop goes on.
func sendSelectBreak(ctx context.Context, c client, msg string) {
	for { // want `this retry loop in sendSelectBreak looks at ctx but does not leave on every end of it \(a Done arm that leaves only the select`
		if err := c.Send(ctx, msg); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			break
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A labelled break leaves the loop.
func sendSelectLabelled(ctx context.Context, c client, msg string) {
retry:
	for {
		if err := c.Send(ctx, msg); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			break retry
		case <-time.After(50 * time.Millisecond):
		}
	}
	log.Print("gave up")
}

// The Done arm is the second one and returns: every round waits in the
// select, which leaves on cancellation.
func sendSelectSecond(ctx context.Context, c client, msg string) error {
	for {
		if err := c.Send(ctx, msg); err == nil {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A look at the context that is logged and not acted on observes nothing.
func sendLogged(ctx context.Context, c client, msg string) {
	for attempt := 0; ; attempt++ { // want `this retry loop in sendLogged looks at ctx but does not leave on every end of it`
		if err := c.Send(ctx, msg); err == nil {
			return
		}
		if err := ctx.Err(); err != nil {
			log.Printf("attempt %d: context ended: %v", attempt, err)
		}
	}
}

// The loop condition is the check.
func sendWhileAlive(ctx context.Context, c client, msg string) {
	for ctx.Err() == nil {
		if err := c.Send(ctx, msg); err == nil {
			return
		}
	}
}

// A non-blocking check with a default arm leaves on cancellation.
func sendPoll(ctx context.Context, c client, msg string) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if err := c.Send(ctx, msg); err == nil {
			return nil
		}
	}
}

// The busy path sleeps without the context, but a canceled send is no busy
// error: it reaches the select, which leaves. The sleep still ignores ctx.
func sendSleepRouted(ctx context.Context, c client, msg string) error {
	for {
		err := c.Send(ctx, msg)
		if err == nil {
			return nil
		}
		if errors.Is(err, errBusy) {
			time.Sleep(time.Second) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff`
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Any failure sleeps and goes back before the select that checks.
func sendSleepAlways(ctx context.Context, c client, msg string) {
	for {
		if err := c.Send(ctx, msg); err != nil {
			time.Sleep(time.Second) // want `time.Sleep ignores ctx and the loop checks it only on some rounds`
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Minute):
		}
	}
}

// A test for Canceled only: after a deadline the loop goes on.
func sendUntilCanceled(ctx context.Context, c client, msg string) error {
	for { // want `this retry loop in sendUntilCanceled looks at ctx but does not leave on every end of it`
		if err := ctx.Err(); err == context.Canceled {
			return err
		}
		if err := c.Send(ctx, msg); err == nil {
			return nil
		}
	}
}

// Near-miss: any end leaves.
func sendUntilEnded(ctx context.Context, c client, msg string) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.Send(ctx, msg); err == nil {
			return nil
		}
	}
}

type session struct{}

func open(ctx context.Context) (*session, error) { return nil, ctx.Err() }

// A retry by recursion: nothing looks at the context between attempts.
func connect(ctx context.Context, attempt int) (*session, error) {
	s, err := open(ctx)
	if err == nil {
		return s, nil
	}
	log.Printf("attempt %d: %v", attempt, err)
	time.Sleep(time.Second)
	return connect(ctx, attempt+1) // want `connect calls itself again after open fails without checking ctx: a retry by recursion`
}

// Near-miss: the recursion looks at the context first.
func connectChecked(ctx context.Context, attempt int) (*session, error) {
	s, err := open(ctx)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return connectChecked(ctx, attempt+1)
}

type node struct{ kids []*node }

func list(ctx context.Context, n *node) ([]*node, error) { return n.kids, ctx.Err() }

// Near-miss: a walk recurses on success, not after a failure.
func walk(ctx context.Context, n *node) error {
	kids, err := list(ctx, n)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := walk(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// Near-miss: a recursion after a failure without a wait is a one-off
// repair with other arguments, not a retry loop.
func addMapping(ctx context.Context, lease int) error {
	_, err := open(ctx)
	if err != nil && lease > 0 {
		return addMapping(ctx, 0)
	}
	return err
}

// Near-miss: the loop's context is a local one that only the deferred
// cancel ends, after the loop: it cannot end while the loop runs.
func sendLocal(c client, msg string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 3; i++ {
		if err := c.Send(ctx, msg); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// The cancel is handed to another goroutine: the context can end mid-loop.
func sendLocalShared(c client, msg string, stop chan<- func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stop <- cancel
	for i := 0; i < 3; i++ {
		if err := c.Send(ctx, msg); err == nil {
			return
		}
		time.Sleep(time.Second) // want `time.Sleep ignores ctx`
	}
}
