package a

import (
	"context"
	"errors"
	"iter"
	"log"
	"time"
)

type listPage struct {
	items []int
	total int
}

func listAt(ctx context.Context, off int) (listPage, error) { return listPage{}, ctx.Err() }

// The guard ends the loop on cancellation and the partial list goes back
// as complete.
func listAll(ctx context.Context) ([]int, error) {
	var out []int
	off := 0
	for ctx.Err() == nil { // want `the loop ends when ctx is done and listAll then returns its results with a nil error: callers take what it gathered so far for a complete answer after ctx is canceled`
		p, err := listAt(ctx, off)
		if err != nil {
			return nil, err
		}
		out = append(out, p.items...)
		off += len(p.items)
		if len(p.items) == 0 || off >= p.total {
			return out, nil
		}
	}
	return out, nil
}

// A look at ctx after the loop reports its end.
func listAllChecked(ctx context.Context) ([]int, error) {
	var out []int
	for off := 0; ctx.Err() == nil && off < 100; off++ {
		p, err := listAt(ctx, off)
		if err != nil {
			return nil, err
		}
		out = append(out, p.items...)
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// A worker that returns only its error may end quietly.
func workUntilDone(ctx context.Context) error {
	for ctx.Err() == nil {
		if _, err := listAt(ctx, 0); err != nil {
			return err
		}
	}
	return nil
}

// The sequence ends silently on cancellation.
func listSeq(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		off := 0
		for ctx.Err() == nil { // want `the loop ends when ctx is done and the sequence then ends without yielding ctx.Err\(\)`
			p, err := listAt(ctx, off)
			if err != nil {
				yield(0, err)
				return
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			off += len(p.items)
			if len(p.items) == 0 {
				return
			}
		}
	}
}

// The sequence yields the context's error after the loop.
func listSeqChecked(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for off := 0; ctx.Err() == nil; off++ {
			p, err := listAt(ctx, off)
			if err != nil {
				yield(0, err)
				return
			}
			if len(p.items) == 0 {
				return
			}
		}
		yield(0, ctx.Err())
	}
}

var errStepSkipped = errors.New("skipped")

type runStep interface {
	Run(ctx context.Context) error
}

// The default arm is taken on any failure, a cancellation too, and only
// logs it.
func runSteps(ctx context.Context, steps []runStep) error {
	for i, st := range steps {
		err := st.Run(ctx)
		switch {
		case err == nil:
		case errors.Is(err, errStepSkipped):
			log.Printf("step %d skipped", i)
		default: // want `err may carry the cancellation of ctx and is only logged, so the loop over steps goes on after cancellation`
			log.Printf("step %d: %v", i, err)
		}
	}
	return nil
}

// case err != nil, the same.
func runStepsNotNil(ctx context.Context, steps []runStep) error {
	for i, st := range steps {
		switch err := st.Run(ctx); {
		case err != nil: // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("step %d: %v", i, err)
		}
	}
	return nil
}

// A case for the cancellation comes first: the default never sees it.
func runStepsCanceled(ctx context.Context, steps []runStep) error {
	for i, st := range steps {
		err := st.Run(ctx)
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			return err
		default:
			log.Printf("step %d: %v", i, err)
		}
	}
	return nil
}

// The default returns the failure.
func runStepsReturned(ctx context.Context, steps []runStep) error {
	for i, st := range steps {
		err := st.Run(ctx)
		switch {
		case err == nil:
		case errors.Is(err, errStepSkipped):
			log.Printf("step %d skipped", i)
		default:
			return err
		}
	}
	return nil
}

type enqueuer interface {
	Enqueue(ctx context.Context, item int) error
}

type aggBroker interface {
	Delete(ctx context.Context, name string) error
}

type aggClient interface {
	EnqueueContext(ctx context.Context, item int) (int, error)
}

type aggregator struct {
	b      aggBroker
	c      aggClient
	queues map[string][]string
}

// Each round makes its own deadline: its end is that item's timeout, and
// the next item gets a fresh one.
func (a *aggregator) aggregate(t time.Time) {
	for _, groups := range a.queues {
		for _, g := range groups {
			ctx, cancel := context.WithDeadline(context.Background(), t.Add(time.Second))
			if _, err := a.c.EnqueueContext(ctx, 1); err != nil {
				log.Printf("enqueue %s: %v", g, err)
				cancel()
				continue
			}
			if err := a.b.Delete(ctx, g); err != nil {
				log.Printf("delete %s", g)
			}
			cancel()
		}
	}
}

// The same with one deadline for every round: once it passes, each
// remaining delete fails at once.
func (a *aggregator) aggregateShared(t time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), t.Add(time.Second))
	defer cancel()
	for _, groups := range a.queues {
		for _, g := range groups {
			if _, err := a.c.EnqueueContext(ctx, 1); err != nil { // want `err may carry the cancellation of ctx and is only logged`
				log.Printf("enqueue %s: %v", g, err)
				continue
			}
			if err := a.b.Delete(ctx, g); err != nil { // want `err may carry the cancellation of ctx and is only logged`
				log.Printf("delete %s", g)
			}
		}
	}
}

// One deadline for the whole walk: once it passes, every remaining item
// fails at once and is only logged.
func enqueueAllShared(ctx context.Context, q enqueuer, items []int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for _, it := range items {
		if err := q.Enqueue(ctx, it); err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("enqueue %d: %v", it, err)
			continue
		}
	}
	return nil
}

// A round's deadline under the caller's context ends with the caller too.
func enqueueAllCaller(ctx context.Context, q enqueuer, items []int, d time.Duration) error {
	for _, it := range items {
		rctx, cancel := context.WithTimeout(ctx, d)
		err := q.Enqueue(rctx, it)
		cancel()
		if err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("enqueue %d: %v", it, err)
			continue
		}
	}
	return nil
}

// A look at ctx between pages ends the sequence silently.
func objects(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for off := 0; ; off++ {
			if ctx.Err() != nil { // want `when ctx is done this branch ends the sequence without yielding ctx.Err\(\)`
				return
			}
			p, err := listAt(ctx, off)
			if err != nil {
				yield(0, err)
				return
			}
			for _, it := range p.items {
				if ctx.Err() != nil {
					return
				}
				if !yield(it, nil) {
					return
				}
			}
			if len(p.items) == 0 {
				return
			}
		}
	}
}

// It yields the context's error before it ends.
func objectsChecked(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for off := 0; ; off++ {
			if err := ctx.Err(); err != nil {
				yield(0, err)
				return
			}
			p, err := listAt(ctx, off)
			if err != nil || len(p.items) == 0 {
				yield(0, err)
				return
			}
		}
	}
}
