package fix

import (
	"context"
	"iter"
	"sync"
)

type step interface {
	Run(ctx context.Context) error
}

// query records the outcome of its execution for Err.
type query struct {
	plan []step
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (q *query) setErr(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
}

// Err reports the outcome once the execution has finished.
func (q *query) Err() error {
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Execute stops between steps when ctx ends but records nothing.
func (q *query) Execute(ctx context.Context) {
	defer close(q.done)
	for _, st := range q.plan {
		select {
		case <-ctx.Done(): // want `when ctx is done Execute returns without recording an error in q.err, which Err returns: it reports nil`
			return
		default:
		}
		if err := st.Run(ctx); err != nil {
			q.setErr(err)
			return
		}
	}
}

// Near miss: the stop is recorded.
func (q *query) ExecuteRecorded(ctx context.Context) {
	defer close(q.done)
	for _, st := range q.plan {
		select {
		case <-ctx.Done():
			q.setErr(ctx.Err())
			return
		default:
		}
		if err := st.Run(ctx); err != nil {
			q.setErr(err)
			return
		}
	}
}

// Near miss: a deferred check records whatever ended the run.
func (q *query) ExecuteDeferred(ctx context.Context) {
	defer close(q.done)
	defer func() {
		if err := ctx.Err(); err != nil {
			q.setErr(err)
		}
	}()
	for _, st := range q.plan {
		select {
		case <-ctx.Done():
			return
		default:
		}
		if err := st.Run(ctx); err != nil {
			q.setErr(err)
			return
		}
	}
}

// Near miss: a method that never records failures in q.err makes no
// promise about it.
func (q *query) Warm(ctx context.Context) {
	for _, st := range q.plan {
		select {
		case <-ctx.Done():
			return
		default:
		}
		_ = st.Run(ctx)
	}
}

// probe keeps a status but no accessor returns an error field.
type probe struct {
	last error
}

// Near miss: nothing hands probe.last out as the work's outcome.
func (p *probe) Loop(ctx context.Context, s step) {
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		p.last = s.Run(ctx)
	}
}

type page struct {
	items []string
	next  string
}

// scanner reads pages; Err says why the iteration stopped.
type scanner struct {
	fetch func(ctx context.Context, key string) (page, error)
	buf   []string
	key   string
	done  bool
	err   error
}

func (it *scanner) Err() error { return it.err }

// Next ends the iteration on a canceled context without saying why.
func (it *scanner) Next(ctx context.Context) (string, bool) {
	for len(it.buf) == 0 {
		if it.done {
			return "", false
		}
		if ctx.Err() != nil { // want `when ctx is done Next returns without recording an error in it.err, which Err returns: it reports nil`
			return "", false
		}
		p, err := it.fetch(ctx, it.key)
		if err != nil {
			it.err = err
			return "", false
		}
		it.buf, it.key, it.done = p.items, p.next, p.next == ""
	}
	v := it.buf[0]
	it.buf = it.buf[1:]
	return v, true
}

// Near miss: the stop is recorded.
func (it *scanner) NextRecorded(ctx context.Context) (string, bool) {
	for len(it.buf) == 0 {
		if it.done {
			return "", false
		}
		if err := ctx.Err(); err != nil {
			it.err = err
			return "", false
		}
		p, err := it.fetch(ctx, it.key)
		if err != nil {
			it.err = err
			return "", false
		}
		it.buf, it.key, it.done = p.items, p.next, p.next == ""
	}
	v := it.buf[0]
	it.buf = it.buf[1:]
	return v, true
}

// All is an iterator whose body ends on a canceled context without saying
// why: a range over it stops as if every page had been read.
func (it *scanner) All(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			if ctx.Err() != nil { // want `when ctx is done the function literal in All returns without recording an error in it.err, which Err returns: it reports nil`
				return
			}
			p, err := it.fetch(ctx, it.key)
			if err != nil {
				it.err = err
				return
			}
			for _, v := range p.items {
				if !yield(v) {
					return
				}
			}
			if p.next == "" {
				return
			}
			it.key = p.next
		}
	}
}

// Near miss: the iterator's body records the stop.
func (it *scanner) AllRecorded(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			if err := ctx.Err(); err != nil {
				it.err = err
				return
			}
			p, err := it.fetch(ctx, it.key)
			if err != nil {
				it.err = err
				return
			}
			for _, v := range p.items {
				if !yield(v) {
					return
				}
			}
			if p.next == "" {
				return
			}
			it.key = p.next
		}
	}
}
