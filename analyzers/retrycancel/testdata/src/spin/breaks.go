package spin

import (
	"context"
	"time"
)

type pubEvent struct {
	user string
	seq  int
}

// The break leaves the select only: the walk goes on after ctx is done.
func publish(ctx context.Context, events chan<- pubEvent, users []string) int {
	sent := 0
	for i, u := range users {
		select {
		case <-ctx.Done():
			break // want `this break leaves the select, not the loop: once ctx is done publish goes on with the next element, and each round takes this case or another at random`
		case events <- pubEvent{u, i}:
			sent++
		}
	}
	return sent
}

// A labelled break leaves the loop.
func publishLabelled(ctx context.Context, events chan<- pubEvent, users []string) int {
	sent := 0
send:
	for i, u := range users {
		select {
		case <-ctx.Done():
			break send
		case events <- pubEvent{u, i}:
			sent++
		}
	}
	return sent
}

// The next round looks at ctx before its select: the break is enough.
func publishChecked(ctx context.Context, events chan<- pubEvent, users []string) int {
	sent := 0
	for i, u := range users {
		if ctx.Err() != nil {
			return sent
		}
		select {
		case <-ctx.Done():
			break
		case events <- pubEvent{u, i}:
			sent++
		}
	}
	return sent
}

// A test of another context before the select does not see ctx end.
func publishOther(ctx, conn context.Context, events chan<- pubEvent, users []string) {
	for i, u := range users {
		if conn.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			break // want `this break leaves the select, not the loop: once ctx is done publishOther goes on`
		case events <- pubEvent{u, i}:
		}
	}
}

// A break in a timer's case is not about the context.
func publishPaced(events chan<- pubEvent, users []string, d time.Duration) {
	for i, u := range users {
		select {
		case <-time.After(d):
			break
		case events <- pubEvent{u, i}:
		}
	}
}

type client struct {
	ctx  context.Context
	send chan []byte
	out  func([]byte) error
}

// A look at the request's context at the top of each round does not see
// the client's own context end: its case is taken at once, every round.
func (c *client) write(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		select {
		case msg, ok := <-c.send:
			if !ok {
				return
			}
			if err := c.out(msg); err != nil {
				return
			}
		case <-c.ctx.Done(): // want `this case <-c.ctx.Done\(\) does not leave the loop in write: once c.ctx is done its receive is always ready`
			break
		}
	}
}

// The same look at a context made from the client's: it ends with it.
func (c *client) writeDerived(ctx context.Context) {
	cctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	for {
		if cctx.Err() != nil {
			return
		}
		select {
		case msg := <-c.send:
			_ = c.out(msg)
		case <-c.ctx.Done():
			break
		}
	}
}
