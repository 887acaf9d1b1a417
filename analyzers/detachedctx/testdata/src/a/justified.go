package a

import (
	"context"
	"time"
)

// The invalidation must outlive the request that triggered it, and says
// so where it detaches.
func Invalidate(ctx context.Context, s *Store) error {
	// We do not want to propagate ctx, to avoid early cancellation: the
	// invalidation has its own timeout.
	ictx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.Save(ictx, "invalidate")
}

func Drain(ctx context.Context, s *Store) error {
	return s.Save(context.Background(), "drain") // deliberately detached: the drain must release every message
}

// Near-miss: a comment that says what the code does, not why it detaches.
func Resave(ctx context.Context, s *Store) error {
	// save again
	return s.Save(context.Background(), "again") // want `context.Background\(\) in Resave cuts off ctx`
}
