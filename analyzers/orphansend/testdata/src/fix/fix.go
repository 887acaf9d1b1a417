package fix

import (
	"context"
	"time"
)

func compute(context.Context) int { return 0 }

func one(ctx context.Context) int {
	ch := make(chan int)
	go func() {
		ch <- compute(ctx) // want `the send on ch blocks forever`
	}()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Second):
		return -1
	}
}

func each(ctx context.Context, items []string) error {
	errs := make(chan error)
	for _, it := range items {
		go func() {
			errs <- work(ctx, it) // want `sends on errs from goroutines started in a loop block forever`
		}()
	}
	for range items {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

func counted(n int) int {
	res := make(chan int)
	for i := 0; i < n; i++ {
		go func() { res <- i * i }() // want `sends on res from goroutines started in a loop block forever`
	}
	return <-res
}

func work(context.Context, string) error { return nil }

func fastest(ctx context.Context, hosts []string) string {
	won := make(chan string, 1)
	for _, h := range hosts {
		go func() {
			if err := work(ctx, h); err == nil {
				won <- h // want `sends on won from goroutines started in a loop block forever`
			}
		}()
	}
	select {
	case h := <-won:
		return h
	case <-ctx.Done():
		return ""
	}
}

func asyncFix(f func() error) <-chan error {
	ch := make(chan error)
	go func() { ch <- f() }() // want `blocks forever once the caller of asyncFix stops waiting`
	return ch
}

func ticks(ctx context.Context, n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- i // want `this send on ch, which ticks returns to its caller`
		}
	}()
	return ch
}

func race(d time.Duration, fn func()) <-chan bool {
	done := make(chan bool)
	go func() {
		fn()
		done <- true // want `the 2 goroutines race starts race to send once each`
	}()
	go func() {
		time.Sleep(d)
		done <- false
	}()
	return done
}
