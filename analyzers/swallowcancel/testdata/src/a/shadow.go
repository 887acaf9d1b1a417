package a

import (
	"context"
	"errors"
	"log"
	"store"
)

// The goroutine declares its own err over getAsync's, which getAsync tests
// after the join: a cancellation never reaches the test (yanzay/tbot#78).
func getAsync(ctx context.Context, k string) (string, error) {
	var (
		v   string
		err error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, err := store.Get(ctx, k) // want `err declared here shadows the err of getAsync, which getAsync tests after this literal: the error of store.Get, which may carry the cancellation of ctx, never reaches that test`
		if err != nil {
			log.Printf("get %s: %v", k, err)
			return
		}
		v = got
	}()
	<-done
	if err != nil {
		return "", err
	}
	return v, nil
}

// The same with err the only new name: the fix assigns the outer err.
func putAsync(ctx context.Context, k string) error {
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := store.Put(ctx, k, "v") // want `err declared here shadows the err of putAsync`
		if err != nil {
			return
		}
	}()
	<-done
	return err
}

// Near-miss: the literal assigns the outer err.
func getAsyncAssigned(ctx context.Context, k string) (string, error) {
	var (
		v   string
		err error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var got string
		got, err = store.Get(ctx, k)
		if err != nil {
			return
		}
		v = got
	}()
	<-done
	if err != nil {
		return "", err
	}
	return v, nil
}

// Near-miss: the inner error is sent back, not lost.
func getAsyncSent(ctx context.Context, k string) (string, error) {
	var err error
	errc := make(chan error, 1)
	go func() {
		_, err := store.Get(ctx, k)
		errc <- err
	}()
	if err = <-errc; err != nil {
		return "", err
	}
	return k, nil
}

// Near-miss: the outer err is never read after the literal; the inner one
// is a callback's own business.
func eachKey(ctx context.Context, keys []string, visit func(func(string))) error {
	err := store.Put(ctx, "start", "")
	if err != nil {
		return err
	}
	visit(func(k string) {
		_, err := store.Get(ctx, k)
		if err != nil {
			log.Print(err)
		}
	})
	return nil
}

// A retry loop whose body declares its own err: the break leaves it for
// a test of the outer err, which is always nil (pipe-cd/pipecd#1597).
func putRetry(ctx context.Context, k string, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		_, err := store.Get(ctx, k) // want `err declared here shadows the err declared outside this block, which putRetry tests after it: the error of store.Get, which may carry the cancellation of ctx, never reaches that test`
		if err == nil {
			return nil
		}
		if errors.Is(err, errBusy) {
			continue
		}
		break
	}
	return err
}

var errBusy = errors.New("busy")

// A walk whose loop shadows the named result (gosnmp/gosnmp#42).
func walk(ctx context.Context, keys []string) (vals []string, err error) {
	for _, k := range keys {
		v, err := store.Get(ctx, k) // want `err declared here shadows the err declared outside this block, which walk tests after it`
		if err != nil {
			break
		}
		vals = append(vals, v)
	}
	return vals, err
}

// Near-miss: the inner error is returned from the block.
func putRetryReturned(ctx context.Context, k string, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		_, err := store.Get(ctx, k)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errBusy) {
			return err
		}
	}
	return err
}

// Near-miss: the block copies the inner error out.
func putRetryCopied(ctx context.Context, k string, attempts int) error {
	var last error
	for i := 0; i < attempts; i++ {
		_, err := store.Get(ctx, k)
		if err == nil {
			return nil
		}
		last = err
	}
	return last
}

// Near-miss: the outer err is not read after the block.
func firstFound(ctx context.Context, keys []string) (string, bool) {
	var err error
	if err != nil {
		return "", false
	}
	for _, k := range keys {
		v, err := store.Get(ctx, k)
		if err == nil {
			return v, true
		}
	}
	return "", false
}

// Near-miss: the outer err is overwritten before any later read, and the
// literal's bare return reads nothing (err is no named result).
func watchKeys(ctx context.Context, keys <-chan string) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case k := <-keys:
				err := store.Put(ctx, k, "v")
				if err != nil {
					continue
				}
				if len(k) > 3 {
					_, err := store.Get(ctx, k)
					if err == nil {
						log.Print(k)
					}
				}
			}
		}
	}()
}
