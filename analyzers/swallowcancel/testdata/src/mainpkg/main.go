package main

import (
	"context"
	"errors"
	"log"

	"store"
)

// run treats cancellation (a signal) as a clean shutdown.
func run(ctx context.Context, ch <-chan int) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
			if err := store.Put(ctx, "k", "v"); errors.Is(err, context.Canceled) {
				return nil
			}
		}
	}
}

func main() {
	if err := run(context.Background(), nil); err != nil {
		log.Fatal(err)
	}
}

// setup logs each failure and goes on: in package main cancellation is the
// program's shutdown.
func setup(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("setup %s: %v", k, err)
		}
		store.Put(ctx, k, "w")
	}
	return nil
}
