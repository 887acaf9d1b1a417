package untracked

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// NodeStats is what one node reports.
type NodeStats struct {
	Node    string
	Pods    int
	CPUUsed float64
}

// StatsQuerier asks one node for its stats.
type StatsQuerier interface {
	Query(ctx context.Context, node string) (NodeStats, error)
}

// CollectNodeStats queries every node concurrently. A node whose query fails returns from its
// goroutine before reaching wg.Done, so the WaitGroup never drains and wg.Wait blocks the caller
// forever, with the accounting of its goroutines permanently off.
// From: istio/istio#39526
// bug: untrackedgo
func CollectNodeStats(ctx context.Context, nodes []string, q StatsQuerier) ([]NodeStats, error) {
	stats := make([]NodeStats, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, node := range nodes {
		wg.Add(1)
		go func() {
			s, err := q.Query(ctx, node)
			if err != nil {
				errs[i] = fmt.Errorf("node %s: %w", node, err)
				return
			}
			stats[i] = s
			wg.Done()
		}()
	}
	wg.Wait()
	return stats, errors.Join(errs...)
}

// CollectNodeStatsDeferred defers wg.Done as the first statement of each goroutine, so the error
// path is counted as well.
// ok: untrackedgo
func CollectNodeStatsDeferred(ctx context.Context, nodes []string, q StatsQuerier) ([]NodeStats, error) {
	stats := make([]NodeStats, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, node := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := q.Query(ctx, node)
			if err != nil {
				errs[i] = fmt.Errorf("node %s: %w", node, err)
				return
			}
			stats[i] = s
		}()
	}
	wg.Wait()
	return stats, errors.Join(errs...)
}

// ShardClient fetches one shard of a query result.
type ShardClient interface {
	FetchShard(ctx context.Context, shard int) ([]byte, error)
}

// Aggregator merges shards, serving repeated shards from a cache.
type Aggregator struct {
	client ShardClient
	cache  sync.Map // shard -> []byte
	mu     sync.Mutex
	parts  map[int][]byte
	errs   []error
}

// store records one shard's bytes.
// ok: untrackedgo
func (a *Aggregator) store(shard int, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.parts == nil {
		a.parts = make(map[int][]byte)
	}
	a.parts[shard] = b
}

// fail records one shard's error.
// ok: untrackedgo
func (a *Aggregator) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, err)
}

// fetchShard is the per-shard goroutine body. Its cache-hit fast path returns before the deferred
// wg.Done is registered, so every cached shard leaves the caller's WaitGroup one short and
// FetchShards never returns.
// From: trickstercache/trickster#356
// bug: untrackedgo
func (a *Aggregator) fetchShard(ctx context.Context, wg *sync.WaitGroup, shard int) {
	if cached, ok := a.cache.Load(shard); ok {
		a.store(shard, cached.([]byte))
		return
	}
	defer wg.Done()
	b, err := a.client.FetchShard(ctx, shard)
	if err != nil {
		a.fail(fmt.Errorf("shard %d: %w", shard, err))
		return
	}
	a.cache.Store(shard, b)
	a.store(shard, b)
}

// fetchShardDeferred registers wg.Done before any return, as the maintainers' fix did.
// ok: untrackedgo
func (a *Aggregator) fetchShardDeferred(ctx context.Context, wg *sync.WaitGroup, shard int) {
	defer wg.Done()
	if cached, ok := a.cache.Load(shard); ok {
		a.store(shard, cached.([]byte))
		return
	}
	b, err := a.client.FetchShard(ctx, shard)
	if err != nil {
		a.fail(fmt.Errorf("shard %d: %w", shard, err))
		return
	}
	a.cache.Store(shard, b)
	a.store(shard, b)
}

// FetchShards fans out fetchShard and waits for all of them.
// ok: untrackedgo
func (a *Aggregator) FetchShards(ctx context.Context, shards []int) error {
	var wg sync.WaitGroup
	for _, s := range shards {
		wg.Add(1)
		go a.fetchShard(ctx, &wg, s)
	}
	wg.Wait()
	return errors.Join(a.errs...)
}

// FetchShardsDeferred fans out fetchShardDeferred and waits for all of them.
// ok: untrackedgo
func (a *Aggregator) FetchShardsDeferred(ctx context.Context, shards []int) error {
	var wg sync.WaitGroup
	for _, s := range shards {
		wg.Add(1)
		go a.fetchShardDeferred(ctx, &wg, s)
	}
	wg.Wait()
	return errors.Join(a.errs...)
}

// Segment is one log segment.
type Segment struct {
	Index int
	Data  []byte
}

// Follower receives replicated segments.
type Follower interface {
	Append(ctx context.Context, s Segment) error
}

// ReplicateSegments copies every segment to the follower. wg.Add runs inside each goroutine, so
// wg.Wait can see a zero counter before any copier has registered and return while copies are still
// in flight; they outlive the call and race with the caller's next step.
// From: gansidui/gotcp#8
// bug: untrackedgo
func ReplicateSegments(ctx context.Context, segs []Segment, dst Follower) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, seg := range segs {
		go func() {
			wg.Add(1)
			defer wg.Done()
			if err := dst.Append(ctx, seg); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("segment %d: %w", seg.Index, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ReplicateSegmentsGo uses WaitGroup.Go, which increments the counter before the goroutine starts.
// ok: untrackedgo
func ReplicateSegmentsGo(ctx context.Context, segs []Segment, dst Follower) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, seg := range segs {
		wg.Go(func() {
			if err := dst.Append(ctx, seg); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("segment %d: %w", seg.Index, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Request is one queued request.
type Request struct {
	ID      string
	Payload []byte
}

// ProcessQueue fans requests out to workers that range over jobs. When ctx is canceled the producer
// returns ctx.Err() without closing jobs or waiting, so every worker stays parked in its range loop
// for the life of the process.
// From: maximhq/bifrost#828
// bug: untrackedgo
func ProcessQueue(ctx context.Context, reqs []Request, workers int, handle func(Request)) error {
	jobs := make(chan Request)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for r := range jobs {
				handle(r)
			}
		})
	}
	for _, r := range reqs {
		select {
		case jobs <- r:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// ProcessQueueClosed defers close(jobs) and wg.Wait before the producer loop, so the workers are
// released and joined on the cancellation return as well.
// ok: untrackedgo
func ProcessQueueClosed(ctx context.Context, reqs []Request, workers int, handle func(Request)) error {
	jobs := make(chan Request)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for r := range jobs {
				handle(r)
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for _, r := range reqs {
		select {
		case jobs <- r:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
