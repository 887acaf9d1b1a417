package swallow

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"heldoutr5c/internal/store"
)

// ShardSyncer pushes shard manifests to the store.
type ShardSyncer struct {
	db *store.DB
}

// push writes one shard's manifest.
// ok: swallowcancel
func (s *ShardSyncer) push(ctx context.Context, shard string) error {
	_, err := s.db.Put(ctx, "shards/"+shard, []byte("synced"))
	return err
}

// SyncShards pushes every shard concurrently and joins the failures. Failures
// that are context.Canceled are left out of the joined error, so when the
// caller cancels half way SyncShards returns nil and the unsynced shards are
// marked as done.
// From: openshift/cluster-version-operator#372
// bug: swallowcancel
func (s *ShardSyncer) SyncShards(ctx context.Context, shards []string) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, shard := range shards {
		wg.Go(func() {
			err := s.push(ctx, shard)
			if err != nil && !errors.Is(err, context.Canceled) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("shard %s: %w", shard, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SyncReplicas is the near-miss of SyncShards: every failure, cancellation
// included, is kept in the joined error, so a canceled run is not reported as
// complete.
// From: openshift/cluster-version-operator#372
// ok: swallowcancel
func (s *ShardSyncer) SyncReplicas(ctx context.Context, shards []string) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, shard := range shards {
		wg.Go(func() {
			err := s.push(ctx, shard)
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("shard %s: %w", shard, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
