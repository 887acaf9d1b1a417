package scope_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/scope"
)

func ExampleScope() {
	s, ctx := scope.New(context.Background())
	s.Go("fetch", func(ctx context.Context) error {
		return errors.New("connection refused")
	})
	s.Go("index", func(ctx context.Context) error {
		<-ctx.Done() // canceled because fetch failed
		return ctx.Err()
	})
	err := s.Wait()
	fmt.Println(err)
	fmt.Println(context.Cause(ctx) != nil)
	// Output:
	// fetch: connection refused
	// true
}

func ExampleScope_WaitTimeout() {
	s, _ := scope.New(context.Background())
	stuck := make(chan struct{})
	s.Go("stubborn", func(ctx context.Context) error {
		<-stuck // does not watch ctx
		return nil
	})
	err := s.WaitTimeout(time.Millisecond)
	var leak *scope.LeakError
	if errors.As(err, &leak) {
		for _, r := range leak.Running {
			fmt.Println("still running:", r.Name)
		}
	}
	close(stuck)
	fmt.Println(s.Wait())
	// Output:
	// still running: stubborn
	// <nil>
}

func ExamplePanicError() {
	s, _ := scope.New(context.Background())
	s.Go("parser", func(ctx context.Context) error {
		panic("unexpected end of input")
	})
	defer func() {
		p := recover().(*scope.PanicError)
		fmt.Println(p.Name, "panicked:", p.Value)
	}()
	_ = s.Wait()
	// Output:
	// parser panicked: unexpected end of input
}
