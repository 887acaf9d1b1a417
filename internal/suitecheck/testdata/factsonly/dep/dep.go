// Package dep is imported by app. When only app is vetted, dep is vetted
// for its facts alone, and app's findings depend on those facts.
package dep

import (
	"context"
	"sync"
	"time"
)

// Scoped returns a child context whose cancel function the caller owns
// (a ReturnsLease fact).
func Scoped(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Second)
}

// Worker runs work and tells wg it is done (a JoinsParam fact).
func Worker(wg *sync.WaitGroup, work func()) {
	defer wg.Done()
	work()
}

// Watch handles events until ctx is done (a Bound fact).
func Watch(ctx context.Context, events <-chan string, handle func(string)) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			handle(e)
		}
	}
}

type key struct{}

// Tenant reads a value from ctx and never observes its end (a NoCancel
// fact).
func Tenant(ctx context.Context) (string, error) {
	if t, ok := ctx.Value(key{}).(string); ok {
		return t, nil
	}
	return "", errNoTenant
}

var errNoTenant = errorString("no tenant")

type errorString string

func (e errorString) Error() string { return string(e) }

// Backoff sleeps before attempt n (a Sleeps fact).
func Backoff(n int) { time.Sleep(time.Duration(n) * 100 * time.Millisecond) }
