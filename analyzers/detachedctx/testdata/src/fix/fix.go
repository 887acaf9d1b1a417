package fix

import (
	"context"
	"net/http"
	"time"
)

func fetch(ctx context.Context) error { return nil }

func rollback(ctx context.Context) {}

func Handle(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second) // want `cuts off r.Context\(\)`
	defer cancel()
	_ = fetch(ctx)
}

func Put(ctx context.Context) error {
	defer rollback(context.TODO()) // want `context.TODO\(\) for the cleanup call rollback`
	return fetch(context.TODO())   // want `cuts off ctx`
}

// Shadowed name: no fix.
func Shadow(ctx context.Context) error {
	{
		ctx := 1
		_ = ctx
		return fetch(context.Background()) // want `cuts off ctx`
	}
}
