package untracked

import (
	"context"
	"sync"
)

// Chunk is one unit of pull-sync work.
type Chunk struct {
	Peer string
	Bin  uint8
}

// ChunkSyncer pulls a chunk range from a peer.
type ChunkSyncer interface {
	SyncInterval(ctx context.Context, c Chunk) error
}

// Puller distributes sync work over a fixed set of workers.
type Puller struct {
	syncer  ChunkSyncer
	workers int
	sink    errSink
}

// feed forwards work to the workers until work is closed or ctx ends.
// ok: untrackedgo
func (p *Puller) feed(ctx context.Context, work <-chan Chunk, jobs chan<- Chunk) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c, ok := <-work:
			if !ok {
				return nil
			}
			select {
			case jobs <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// Run starts the workers and feeds them until ctx ends. On shutdown it
// closes the work channel and returns without waiting for the workers,
// which may still be inside SyncInterval.
// From: ethersphere/bee#370
// bug: untrackedgo
func (p *Puller) Run(ctx context.Context, work <-chan Chunk) error {
	jobs := make(chan Chunk)
	for i := 0; i < p.workers; i++ {
		go func() {
			for c := range jobs {
				p.sink.add(p.syncer.SyncInterval(ctx, c))
			}
		}()
	}
	err := p.feed(ctx, work, jobs)
	close(jobs)
	if err != nil {
		return err
	}
	return p.sink.join()
}

// RunNearMiss waits for every worker after closing the work channel.
// ok: untrackedgo
func (p *Puller) RunNearMiss(ctx context.Context, work <-chan Chunk) error {
	jobs := make(chan Chunk)
	var wg sync.WaitGroup
	for i := 0; i < p.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				p.sink.add(p.syncer.SyncInterval(ctx, c))
			}
		}()
	}
	err := p.feed(ctx, work, jobs)
	close(jobs)
	wg.Wait()
	if err != nil {
		return err
	}
	return p.sink.join()
}
