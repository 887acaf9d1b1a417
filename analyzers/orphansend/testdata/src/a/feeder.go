package a

import "context"

type shardResp struct {
	i   int
	err error
}

func runShard(ctx context.Context, q int) error { return ctx.Err() }

// A feeder goroutine fans the shards out; the collector returns on the
// first error or on ctx, and the shards still running block on ch.
func forShards(ctx context.Context, qs []int) error {
	ch := make(chan shardResp)
	sem := make(chan struct{}, 4)
	go func() {
		for i, q := range qs {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				ch <- shardResp{i, runShard(ctx, q)} // want `sends on ch from goroutines started in a loop block forever once forShards stops receiving early`
			}()
		}
	}()
	for range qs {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-ch:
			if r.err != nil {
				return r.err
			}
		}
	}
	return nil
}

// Near-miss: one slot per shard, so every send completes whoever stops
// receiving.
func forShardsBuffered(ctx context.Context, qs []int) error {
	ch := make(chan shardResp, len(qs))
	go func() {
		for i, q := range qs {
			go func() {
				ch <- shardResp{i, runShard(ctx, q)}
			}()
		}
	}()
	for range qs {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-ch:
			if r.err != nil {
				return r.err
			}
		}
	}
	return nil
}
