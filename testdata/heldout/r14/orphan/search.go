package orphan

import (
	"context"
	"sync"
)

// Trace is a search hit.
type Trace struct {
	TraceID string
	RootSvc string
}

// SearchRequest is a frontend search.
type SearchRequest struct {
	Query string
	Limit int
}

// ShardResponse is one shard's answer.
type ShardResponse struct {
	Traces []Trace
	Err    error
}

// Shard is one backend block range.
type Shard interface {
	Search(ctx context.Context, req SearchRequest) ShardResponse
}

// SearchSharder fans a search out over shards.
type SearchSharder struct {
	shards []Shard
}

// Search queries every shard concurrently and combines the hits, stopping
// once it has Limit of them or a shard fails.
//
// From: grafana/tempo#3495
// bug: orphansend
func (s *SearchSharder) Search(ctx context.Context, req SearchRequest) ([]Trace, error) {
	resps := make(chan ShardResponse)
	var wg sync.WaitGroup
	for _, sh := range s.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps <- sh.Search(ctx, req)
		}()
	}
	go func() {
		wg.Wait()
		close(resps)
	}()
	var out []Trace
	for r := range resps {
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, r.Traces...)
		if len(out) >= req.Limit {
			return out[:req.Limit], nil
		}
	}
	return out, nil
}

// SearchNearMiss cancels the shard goroutines when it stops reading, and
// they give up their send on cancellation.
//
// ok: orphansend
func (s *SearchSharder) SearchNearMiss(ctx context.Context, req SearchRequest) ([]Trace, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resps := make(chan ShardResponse)
	var wg sync.WaitGroup
	for _, sh := range s.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sh.Search(ctx, req)
			select {
			case resps <- r:
			case <-ctx.Done():
			}
		}()
	}
	go func() {
		wg.Wait()
		close(resps)
	}()
	var out []Trace
	for r := range resps {
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, r.Traces...)
		if len(out) >= req.Limit {
			return out[:req.Limit], nil
		}
	}
	return out, nil
}
