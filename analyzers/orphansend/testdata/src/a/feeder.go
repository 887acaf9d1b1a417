package a

import (
	"context"
	"errors"
)

var errBadRow = errors.New("bad row")

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

// A producer feeds rows one by one; the consumer returns at the first bad
// row and the producer's next send waits forever.
func sumRows(rows []int) (int, error) {
	in := make(chan int)
	go func() {
		defer close(in)
		for _, r := range rows {
			in <- r // want `the goroutine's sends on in in a loop block forever once sumRows stops receiving early, so the goroutine leaks`
		}
	}()
	sum := 0
	for r := range in {
		if r < 0 {
			return 0, errBadRow
		}
		sum += r
	}
	return sum, nil
}

// Near-miss: the producer gives up when the consumer's context ends, and
// the consumer cancels it on the way out.
func sumRowsCanceled(ctx context.Context, rows []int) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := make(chan int)
	go func() {
		defer close(in)
		for _, r := range rows {
			select {
			case in <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	sum := 0
	for r := range in {
		if r < 0 {
			return 0, errBadRow
		}
		sum += r
	}
	return sum, nil
}

// Near-miss: the consumer reads to the end.
func sumRowsAll(rows []int) (int, error) {
	in := make(chan int)
	go func() {
		defer close(in)
		for _, r := range rows {
			in <- r
		}
	}()
	sum, bad := 0, false
	for r := range in {
		if r < 0 {
			bad = true
		}
		sum += r
	}
	if bad {
		return 0, errBadRow
	}
	return sum, nil
}
