package fix

import (
	"context"

	"store"
)

func putShadowed(ctx context.Context, k string) error {
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := store.Put(ctx, k, "v") // want `err declared here shadows the err of putShadowed`
		if err != nil {
			return
		}
	}()
	<-done
	return err
}

func getRetry(ctx context.Context, k string, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		_, err := store.Get(ctx, k) // want `err declared here shadows the err declared outside this block`
		if err == nil {
			return nil
		}
	}
	return err
}
