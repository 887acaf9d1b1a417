package scope_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cancelcheck/cancelcheck/rt/scope"
)

const fanout = 8

func BenchmarkScope(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, _ := scope.New(context.Background())
		for j := 0; j < fanout; j++ {
			s.Go("w", func(context.Context) error { return nil })
		}
		if err := s.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWaitGroup(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for j := 0; j < fanout; j++ {
			wg.Add(1)
			go func() { defer wg.Done() }()
		}
		wg.Wait()
	}
}

// group is what golang.org/x/sync/errgroup.WithContext does, by hand.
type group struct {
	wg     sync.WaitGroup
	once   sync.Once
	err    error
	cancel context.CancelCauseFunc
}

func (g *group) Go(ctx context.Context, f func(context.Context) error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(ctx); err != nil {
			g.once.Do(func() { g.err = err; g.cancel(err) })
		}
	}()
}

func BenchmarkErrgroupEquivalent(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancelCause(context.Background())
		g := &group{cancel: cancel}
		for j := 0; j < fanout; j++ {
			g.Go(ctx, func(context.Context) error { return nil })
		}
		g.wg.Wait()
		cancel(g.err)
		if g.err != nil {
			b.Fatal(g.err)
		}
	}
}
