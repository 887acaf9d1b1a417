package a

import (
	"context"
	"log"

	"store"
)

// ---- doc contracts: a clause whose subject is the function ----

// A doc comment that describes the code, mentioning a shutdown and a nil
// return, promises nothing: the drop is reported.
//
// syncAllDescribed logs each failure and moves on, so after a shutdown
// begins every remaining key fails, and syncAllDescribed still returns nil.
func syncAllDescribed(ctx context.Context, ks []string) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("put %s: %v", k, err)
		}
	}
	return nil
}

// The same loop under a contract led by a condition.
//
// syncAllPromised writes every key. On shutdown it returns nil.
func syncAllPromised(ctx context.Context, ks []string) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("put %s: %v", k, err)
		}
	}
	return nil
}

// The subject of the contract is the function.
//
// syncAllUntil blocks until ctx is canceled, writing the keys it receives.
func syncAllUntil(ctx context.Context, ks <-chan string) error {
	for k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("put %s: %v", k, err)
		}
	}
	return nil
}
