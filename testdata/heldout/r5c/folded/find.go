package folded

import (
	"context"

	"heldoutr5c/internal/store"
)

// FindOne returns the first record under prefix, decoded. When the scan stops
// because ctx ended, the iteration error is dropped on the break and
// store.ErrNotFound is returned, so a timed-out lookup is reported (and
// negatively cached by the caller) as a missing row.
// From: aarondl/sqlboiler#1443
// bug: foldedtimeout
func FindOne[T any](ctx context.Context, db *store.DB, prefix string, decode func([]byte) (T, error)) (T, error) {
	var zero T
	for rec, err := range db.Scan(ctx, prefix) {
		if err != nil {
			break
		}
		return decode(rec.Value)
	}
	return zero, store.ErrNotFound
}

// First is the near-miss of FindOne: the iteration error is returned as is,
// so ErrNotFound only means the prefix really is empty.
// From: aarondl/sqlboiler#1443
// ok: foldedtimeout
func First[T any](ctx context.Context, db *store.DB, prefix string, decode func([]byte) (T, error)) (T, error) {
	var zero T
	for rec, err := range db.Scan(ctx, prefix) {
		if err != nil {
			return zero, err
		}
		return decode(rec.Value)
	}
	return zero, store.ErrNotFound
}
