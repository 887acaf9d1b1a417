package swallow

import (
	"context"
	"fmt"

	"heldoutr5c/internal/store"
)

// Compactor finds superseded job records.
type Compactor struct {
	db *store.DB
}

// NewCompactor returns a compactor over db.
// ok: swallowcancel
func NewCompactor(db *store.DB) *Compactor {
	return &Compactor{db: db}
}

// StaleJobs lists job keys whose version is below cutoff. When the scan
// yields an error (ctx.Err() once the context ends) the loop breaks and the
// keys seen so far are returned with a nil error, so a canceled scan looks
// like a complete, shorter listing.
// From: stephenafamo/scan#11
// bug: swallowcancel
func (c *Compactor) StaleJobs(ctx context.Context, cutoff int64) ([]string, error) {
	var stale []string
	for rec, err := range c.db.Scan(ctx, "jobs/") {
		if err != nil {
			break
		}
		if rec.Version < cutoff {
			stale = append(stale, rec.Key)
		}
	}
	return stale, nil
}

// StaleLeases is the near-miss of StaleJobs: the iteration error is returned,
// so a canceled scan is reported as a failure rather than a short listing.
// From: stephenafamo/scan#11
// ok: swallowcancel
func (c *Compactor) StaleLeases(ctx context.Context, cutoff int64) ([]string, error) {
	var stale []string
	for rec, err := range c.db.Scan(ctx, "leases/") {
		if err != nil {
			return nil, fmt.Errorf("scan leases: %w", err)
		}
		if rec.Version < cutoff {
			stale = append(stale, rec.Key)
		}
	}
	return stale, nil
}
