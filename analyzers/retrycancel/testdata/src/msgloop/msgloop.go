// Package msgloop holds protocol loops: each round handles the next message,
// and a step that fails with the context's error ends the loop. They are not
// retries, whatever switch or select chooses the step.
package msgloop

import (
	"context"
	"errors"
	"time"
)

type (
	authOK    struct{}
	authSASL  struct{ oauth bool }
	paramInfo struct{}
)

type conn struct{}

func (c *conn) receive() (any, error)                   { return nil, nil }
func (c *conn) oauth(ctx context.Context) error         { return ctx.Err() }
func (c *conn) scram() error                            { return nil }
func (c *conn) validate(ctx context.Context) error      { return ctx.Err() }
func (c *conn) handle(ctx context.Context, m any) error { return ctx.Err() }
func (c *conn) close()                                  {}

var errUnexpected = errors.New("unexpected message")

// Clean: the step that takes ctx is chosen by a type switch, and its
// error is returned after the switch's if.
func Startup(ctx context.Context, c *conn) error {
	for {
		msg, err := c.receive()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *authSASL:
			if m.oauth {
				err = c.oauth(ctx)
			} else {
				err = c.scram()
			}
			if err != nil {
				c.close()
				return err
			}
		case *authOK:
			if err := c.validate(ctx); err != nil {
				return err
			}
			return nil
		case *paramInfo:
		default:
			return errUnexpected
		}
	}
}

// The step's error ends the loop, but only at the next tick: the wait
// itself does not end with ctx.
func Pump(ctx context.Context, c *conn, tick *time.Ticker) error {
	for {
		select { // want `this select over timers only ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff before it notices`
		case <-tick.C:
			if err := c.handle(ctx, nil); err != nil {
				return err
			}
		}
	}
}

// Still a retry: the type switch only picks what to log, and every error
// goes round again.
func Redial(ctx context.Context, c *conn) {
	for { // want `this retry loop in Redial calls c.validate again after it fails without checking ctx`
		err := c.validate(ctx)
		switch err.(type) {
		case nil:
			return
		case interface{ Temporary() bool }:
			continue
		}
	}
}

type reader struct{}

func (r *reader) readReply() (any, error) { return nil, nil }
func (r *reader) buffered() int           { return 0 }

type handler interface {
	handle(ctx context.Context, note []any) error
}

func logf(format string, args ...any) {}

// Clean: each round reads the next notification and hands it to its
// handler; a failed handler is logged and the loop goes on to the next
// notification, not the same one again.
func Drain(ctx context.Context, r *reader, h handler) error {
	for r.buffered() > 0 {
		reply, err := r.readReply()
		if err != nil {
			return err
		}
		note, ok := reply.([]any)
		if !ok {
			break
		}
		if err := h.handle(ctx, note); err != nil {
			logf("handling notification: %v", err)
		}
	}
	return nil
}

// Clean: the same for notifications from a channel.
func DrainChan(ctx context.Context, notes <-chan []any, h handler) {
	for {
		note, ok := <-notes
		if !ok {
			return
		}
		if err := h.handle(ctx, note); err != nil {
			logf("handling notification: %v", err)
		}
	}
}

// Still a retry: the note is built the same way every round.
func Resend(ctx context.Context, h handler, body string) {
	for { // want `this retry loop in Resend calls h.handle again after it fails without checking ctx`
		note := []any{body}
		if err := h.handle(ctx, note); err == nil {
			return
		}
	}
}

func (c *conn) process(ctx context.Context, attempt int) (bool, error) { return false, ctx.Err() }

// Clean: the call says whether its failure may be retried, and the loop
// returns when it may not.
func ProcessWithRetry(ctx context.Context, c *conn, max int) error {
	var lastErr error
	for attempt := 0; attempt <= max; attempt++ {
		attempt := attempt
		retry, err := c.process(ctx, attempt)
		if err == nil || !retry {
			return err
		}
		lastErr = err
	}
	return lastErr
}

// Still a retry: the flag is the loop's own, not the call's verdict.
func ProcessCounted(ctx context.Context, c *conn, max int) error {
	var lastErr error
	verbose := max > 3
	for attempt := 0; attempt <= max; attempt++ { // want `this retry loop in ProcessCounted calls c.process again after it fails without checking ctx`
		attempt := attempt
		_, err := c.process(ctx, attempt)
		if err == nil || !verbose {
			return err
		}
		lastErr = err
	}
	return lastErr
}

func (c *conn) next(ctx context.Context) (string, error) { return "", ctx.Err() }

// Clean: the loop condition ends the loop on the error the call assigns
// at the end of the round.
func Fetch(ctx context.Context, c *conn, batch int) ([]string, error) {
	var msgs []string
	var err error
	for err == nil && len(msgs) < batch {
		var m string
		m, err = c.next(ctx)
		if err == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs, err
}

// Still a retry: the condition tests another error.
func FetchOther(ctx context.Context, c *conn, batch int) []string {
	var msgs []string
	var done error
	for done == nil && len(msgs) < batch { // want `this retry loop in FetchOther calls c.next again after it fails without checking ctx`
		m, err := c.next(ctx)
		if err == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

func (c *conn) remove(ctx context.Context, body []byte) error { return ctx.Err() }

func encode(keys []string) []byte { return nil }

// Clean: each round gathers the next batch from the channel and removes
// it; a failure is reported for that batch and the loop goes on to the
// next one.
func RemoveAll(ctx context.Context, c *conn, keys <-chan string, errs chan<- error) {
	for done := false; !done; {
		var batch []string
		for k := range keys {
			batch = append(batch, k)
			if len(batch) == 100 {
				break
			}
		}
		if len(batch) < 100 {
			done = true
		}
		body := encode(batch)
		if err := c.remove(ctx, body); err != nil {
			errs <- err
			continue
		}
	}
}

type headers struct{}

type framer struct{}

func (f *framer) readFrame() (any, error) { return nil, nil }

func (c *conn) operateHeaders(ctx context.Context, h *headers) error { return ctx.Err() }

// Clean: each round reads a frame and dispatches it by type; a bad headers
// frame is answered and the loop reads the next frame.
func HandleStreams(ctx context.Context, c *conn, fr *framer) {
	for {
		frame, err := fr.readFrame()
		if err != nil {
			return
		}
		switch frame := frame.(type) {
		case *headers:
			if err := c.operateHeaders(ctx, frame); err != nil {
				logf("bad headers: %v", err)
				continue
			}
		}
	}
}

type fatalLogger interface {
	Fatalf(format string, args ...any)
}

// Clean: a failed call ends the program; the loop never goes round after
// it.
func PickFirst(ctx context.Context, c *conn, n int, log fatalLogger) {
	for i := 0; i < n; i++ {
		if err := c.validate(ctx); err != nil {
			log.Fatalf("call %d: %v", i, err)
		}
	}
}

// Still a retry: the fatal call is not on the failure's path.
func PickFirstLate(ctx context.Context, c *conn, n int, log fatalLogger) {
	for i := 0; i < n; i++ { // want `this retry loop in PickFirstLate calls c.validate again after it fails without checking ctx`
		if err := c.validate(ctx); err == nil {
			log.Fatalf("call %d succeeded", i)
		}
	}
}

// Clean: the loop checks ctx, and the pause before each refresh lasts at
// most 10ms past the last one.
func Refresh(ctx context.Context, c *conn, updates <-chan struct{}) {
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-updates:
		}
		time.Sleep(time.Until(last.Add(10 * time.Millisecond)))
		last = time.Now()
		if err := c.validate(ctx); err != nil {
			logf("refresh: %v", err)
		}
	}
}

// The same pause of up to a second delays the stop.
func RefreshSlow(ctx context.Context, c *conn, updates <-chan struct{}) {
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-updates:
		}
		time.Sleep(time.Until(last.Add(time.Second))) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff before it notices`
		last = time.Now()
		if err := c.validate(ctx); err != nil {
			logf("refresh: %v", err)
		}
	}
}

type limiter struct{}

func (l *limiter) Wait(ctx context.Context) error { return ctx.Err() }

// Clean: the rate limiter's Wait fails once ctx is done, and the loop
// condition ends the loop on it.
func WatchEndpoints(ctx context.Context, c *conn, rl *limiter) {
	for rl.Wait(ctx) == nil {
		if err := c.validate(ctx); err != nil {
			logf("watch: %v", err)
			continue
		}
	}
}

type entry struct{ key string }

type expiry struct{ queue []*entry }

// Next pops the next due entry, or returns nil.
func (q *expiry) Next(now time.Time) *entry {
	if len(q.queue) == 0 {
		return nil
	}
	e := q.queue[0]
	q.queue = q.queue[1:]
	return e
}

// Pop returns the next entry and whether there was one.
func (q *expiry) Pop() (*entry, bool) {
	e := q.Next(time.Now())
	return e, e != nil
}

func expire(ctx context.Context, key string) error { return ctx.Err() }

// Clean: each round pops a different entry and the loop ends when the
// queue runs dry; a failed deletion is logged and the next entry handled.
func DrainExpired(ctx context.Context, q *expiry) {
	now := time.Now()
	for {
		e := q.Next(now)
		if e == nil {
			return
		}
		if err := expire(ctx, e.key); err != nil {
			logf("expire %s: %v", e.key, err)
		}
	}
}

// Clean: the same with a comma-ok pop and a break.
func DrainPopped(ctx context.Context, q *expiry) {
	for {
		e, ok := q.Pop()
		if !ok {
			break
		}
		if err := expire(ctx, e.key); err != nil {
			logf("expire %s: %v", e.key, err)
		}
	}
}

// The entry is fetched each round but the loop never leaves when the
// source is empty: it retries the same key until the context's end, and
// then forever.
func RetryFirst(ctx context.Context, q *expiry) {
	for { // want `this retry loop in RetryFirst calls expire again after it fails without checking ctx`
		e := q.queue[0]
		if err := expire(ctx, e.key); err != nil {
			logf("expire %s: %v", e.key, err)
			continue
		}
		return
	}
}
