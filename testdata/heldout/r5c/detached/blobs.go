package detached

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"heldoutr5c/internal/store"
)

// Sidecar is one blob sidecar of a block.
type Sidecar struct {
	Index int
	Blob  []byte
	Proof []byte
}

// BlobVerifier checks KZG proofs for blob sidecars.
type BlobVerifier struct {
	headers *store.DB
	verify  func(ctx context.Context, root []byte, sc Sidecar) error
}

// VerifyBlobs loads the block header on ctx and then verifies every sidecar
// in parallel. The errgroup is derived from context.Background() rather than
// ctx, so when the slot's processing deadline passes the proof checks keep
// running to completion.
// From: berachain/beacon-kit#2376
// bug: detachedctx
func (v *BlobVerifier) VerifyBlobs(ctx context.Context, blockRoot string, sidecars []Sidecar) error {
	hdr, err := v.headers.Get(ctx, "headers/"+blockRoot)
	if err != nil {
		return fmt.Errorf("load header %s: %w", blockRoot, err)
	}
	g, gctx := errgroup.WithContext(context.Background())
	for _, sc := range sidecars {
		g.Go(func() error { return v.verify(gctx, hdr.Value, sc) })
	}
	return g.Wait()
}

// VerifySidecars is the near-miss of VerifyBlobs: the errgroup is derived
// from ctx, so the deadline reaches every proof check.
// From: berachain/beacon-kit#2376
// ok: detachedctx
func (v *BlobVerifier) VerifySidecars(ctx context.Context, blockRoot string, sidecars []Sidecar) error {
	hdr, err := v.headers.Get(ctx, "headers/"+blockRoot)
	if err != nil {
		return fmt.Errorf("load header %s: %w", blockRoot, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, sc := range sidecars {
		g.Go(func() error { return v.verify(gctx, hdr.Value, sc) })
	}
	return g.Wait()
}
