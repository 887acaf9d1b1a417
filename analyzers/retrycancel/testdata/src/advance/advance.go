// Package advance holds loops whose bound call takes loop-carried
// arguments: a walk when every round after a failure advances them, a
// retry of the same work when a failed round goes back unchanged, and
// loops over iterators that yield a schedule rather than items.
package advance

import (
	"context"
	"iter"
	"log"
	"time"
)

type span struct{ start, end int64 }

func fetch(ctx context.Context, start, end int64) ([][]byte, error) { return nil, ctx.Err() }

// The range advances only on success: a failed fetch asks for the same
// range again, at once, forever after ctx ends.
func Spans(ctx context.Context, r span, out chan<- [][]byte) {
	for r.start <= r.end { // want `this retry loop in Spans checks ctx only on some rounds: a round that skips the check calls fetch again after it fails`
		entries, err := fetch(ctx, r.start, r.end)
		if err != nil {
			log.Printf("fetch: %v", err)
			continue
		}
		select {
		case out <- entries:
		case <-ctx.Done():
			return
		}
		r.start += int64(len(entries))
	}
}

// Near miss: a failed fetch leaves once ctx has ended.
func SpansChecked(ctx context.Context, r span, out chan<- [][]byte) {
	for r.start <= r.end {
		entries, err := fetch(ctx, r.start, r.end)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Printf("fetch: %v", err)
			continue
		}
		select {
		case out <- entries:
		case <-ctx.Done():
			return
		}
		r.start += int64(len(entries))
	}
}

// Near miss: a failed piece is skipped, so every round moves on and the
// walk ends with its range (dropping the error is swallowcancel's
// business, not a retry).
func SpansSkipping(ctx context.Context, r span, out chan<- [][]byte) {
	for r.start <= r.end {
		entries, err := fetch(ctx, r.start, r.end)
		if err != nil {
			log.Printf("fetch: %v", err)
			r.start++
			continue
		}
		select {
		case out <- entries:
		case <-ctx.Done():
			return
		}
		r.start += int64(len(entries))
	}
}

func list(ctx context.Context, token string) ([]string, string, error) { return nil, "", ctx.Err() }

// The page token advances only on success: a failed page is asked for
// again.
func Pages(ctx context.Context) []string {
	var all []string
	token := "start"
	for token != "" { // want `this retry loop in Pages calls list again after it fails without checking ctx`
		items, next, err := list(ctx, token)
		if err != nil {
			log.Print(err)
			continue
		}
		all = append(all, items...)
		token = next
	}
	return all
}

// Near miss: the token is taken from every answer, failed or not.
func PagesAlways(ctx context.Context) []string {
	var all []string
	token := "start"
	for token != "" {
		items, next, err := list(ctx, token)
		if err != nil {
			log.Print(err)
		}
		all = append(all, items...)
		token = next
	}
	return all
}

// Delays yields n pauses, each twice as long as the one before.
func Delays(base time.Duration, n int) iter.Seq[time.Duration] {
	return func(yield func(time.Duration) bool) {
		for i := 0; i < n; i++ {
			if !yield(base) {
				return
			}
			base *= 2
		}
	}
}

func configure(ctx context.Context) error { return ctx.Err() }

// A range over a schedule of pauses is a retry loop.
func Provision(ctx context.Context) error {
	var err error
	for d := range Delays(time.Second, 5) { // want `this retry loop in Provision calls configure again after it fails without checking ctx`
		if err = configure(ctx); err == nil {
			return nil
		}
		log.Printf("retrying in %s: %v", d, err)
	}
	return err
}

// Near miss: the pause is interruptible.
func ProvisionWaits(ctx context.Context) error {
	var err error
	for d := range Delays(time.Second, 5) {
		if err = configure(ctx); err == nil {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return err
}

// Hosts yields host names.
func Hosts(names []string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, n := range names {
			if !yield(n) {
				return
			}
		}
	}
}

func dial(ctx context.Context, host string) error { return ctx.Err() }

// Near miss: a range over an iterator of items walks them; each host is
// tried once.
func Failover(ctx context.Context, names []string) error {
	var err error
	for h := range Hosts(names) {
		if err = dial(ctx, h); err == nil {
			return nil
		}
	}
	return err
}

// Near miss: an iterator of attempt numbers whose number is the call's
// argument walks the attempts.
func AttemptNumbers(ctx context.Context, seq iter.Seq[int], try func(context.Context, int) error) {
	for i := range seq {
		if err := try(ctx, i); err != nil {
			log.Print(err)
		}
	}
}

// Attempts yields attempt numbers, pausing between them; it stops when ctx
// ends.
func Attempts(ctx context.Context, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) || ctx.Err() != nil {
				return
			}
		}
	}
}

// Near miss: the schedule is given the context and ends with it.
func Register(ctx context.Context) error {
	var err error
	for range Attempts(ctx, 5) {
		if err = configure(ctx); err == nil {
			return nil
		}
	}
	return err
}
