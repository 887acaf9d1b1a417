// Package swallow holds functions where a cancellation error may be dropped.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"
)

// ---- weaviate-style bucket cursor ----

type Bucket struct {
	keys [][]byte
	vals map[string][]float32
}

type Cursor struct {
	b   *Bucket
	pos int
}

// Helper.
//
// ok: swallowcancel
func (b *Bucket) Cursor() *Cursor { return &Cursor{b: b} }

// Helper.
//
// ok: swallowcancel
func (c *Cursor) First() ([]byte, []float32) {
	c.pos = 0
	return c.Next()
}

// Helper.
//
// ok: swallowcancel
func (c *Cursor) Next() ([]byte, []float32) {
	if c.pos >= len(c.b.keys) {
		return nil, nil
	}
	k := c.b.keys[c.pos]
	c.pos++
	return k, c.b.vals[string(k)]
}

// Helper.
//
// ok: swallowcancel
func (c *Cursor) Close() {}

// VectorDimensions sums the dimensions of every vector stored in the bucket.
// From: weaviate/weaviate#12448
// when ctx is cancelled mid-scan the loop breaks and the partial count is returned with a nil error, so usage reports undercount silently
//
// bug: swallowcancel
func VectorDimensions(ctx context.Context, b *Bucket) (int, error) {
	c := b.Cursor()
	defer c.Close()
	total := 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if ctx.Err() != nil {
			break
		}
		total += len(v)
	}
	return total, nil
}

// VectorDimensionsNearMiss sums the dimensions of every vector stored in the bucket.
// From: weaviate/weaviate#12448
// a cancelled scan returns the partial count together with ctx.Err(), so callers know it is incomplete
//
// ok: swallowcancel
func VectorDimensionsNearMiss(ctx context.Context, b *Bucket) (int, error) {
	c := b.Cursor()
	defer c.Close()
	total := 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		total += len(v)
	}
	return total, nil
}

// ---- gobgp-style List* streaming ----

type Peer struct {
	Address string
	State   string
}

type BgpServer struct {
	mu    sync.RWMutex
	peers map[string]*Peer
}

// Helper.
//
// ok: swallowcancel
func (s *BgpServer) snapshotPeers(addr string) []*Peer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*Peer
	for a, p := range s.peers {
		if addr == "" || a == addr {
			cp := *p
			out = append(out, &cp)
		}
	}
	return out
}

// ListPeer streams a snapshot of the configured peers to fn.
// From: osrg/gobgp#3227
// a cancelled request leaves the loop through the ctx.Done branch with return nil, so the gRPC stream ends as if every peer had been listed
//
// bug: swallowcancel
func (s *BgpServer) ListPeer(ctx context.Context, addr string, fn func(*Peer)) error {
	for _, p := range s.snapshotPeers(addr) {
		select {
		case <-ctx.Done():
			return nil
		default:
		}
		fn(p)
	}
	return nil
}

// ListPeerNearMiss streams a snapshot of the configured peers to fn.
// From: osrg/gobgp#3227
// cancellation is reported by returning ctx.Err() instead of nil
//
// ok: swallowcancel
func (s *BgpServer) ListPeerNearMiss(ctx context.Context, addr string, fn func(*Peer)) error {
	for _, p := range s.snapshotPeers(addr) {
		if err := ctx.Err(); err != nil {
			return err
		}
		fn(p)
	}
	return nil
}

// ---- teranode-style file blob store with a channel semaphore ----

type FileStore struct {
	dir     string
	readSem chan struct{}
}

// Helper.
//
// ok: swallowcancel
func NewFileStore(dir string, maxOpen int) *FileStore {
	return &FileStore{dir: dir, readSem: make(chan struct{}, maxOpen)}
}

// Helper.
//
// ok: swallowcancel
func (s *FileStore) acquireReadPermit(ctx context.Context) (func(), error) {
	select {
	case s.readSem <- struct{}{}:
		return func() { <-s.readSem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Get reads a blob, waiting for a file-descriptor permit first.
// From: bsv-blockchain/teranode#63
// when the permit wait is cancelled Get returns (nil, nil), so the caller treats a missing read as an empty blob that was fetched successfully
//
// bug: swallowcancel
func (s *FileStore) Get(ctx context.Context, key string) ([]byte, error) {
	release, err := s.acquireReadPermit(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, nil
		}
		return nil, fmt.Errorf("blob %s: acquire read permit: %w", key, err)
	}
	defer release()
	return os.ReadFile(filepath.Join(s.dir, key))
}

// GetNearMiss reads a blob, waiting for a file-descriptor permit first.
// From: bsv-blockchain/teranode#63
// every permit error, including context.Canceled, is wrapped with %w and returned
//
// ok: swallowcancel
func (s *FileStore) GetNearMiss(ctx context.Context, key string) ([]byte, error) {
	release, err := s.acquireReadPermit(ctx)
	if err != nil {
		return nil, fmt.Errorf("blob %s: acquire read permit: %w", key, err)
	}
	defer release()
	return os.ReadFile(filepath.Join(s.dir, key))
}

// ---- spanner-mycli-style partitioned query ----

type Row []string

type Partition interface {
	Read(ctx context.Context, out chan<- Row) error
}

// Helper.
//
// ok: swallowcancel
func drain(rows <-chan Row, consume func(Row) error) error {
	var err error
	for r := range rows {
		if err == nil {
			err = consume(r)
		}
	}
	return err
}

// RunPartitioned reads all partitions in parallel and feeds the rows to consume.
// From: apstndb/spanner-mycli#666
// ctx is shadowed by the child context, so a cancellation of the caller's context is filtered out as "our own" context.Canceled and the truncated output is reported as success
//
// bug: swallowcancel
func RunPartitioned(ctx context.Context, parts []Partition, consume func(Row) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	rows := make(chan Row)
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range parts {
		g.Go(func() error { return p.Read(gctx, rows) })
	}
	producersDone := make(chan error, 1)
	go func() {
		producersDone <- g.Wait()
		close(rows)
	}()

	consumeErr := drain(rows, consume)
	cancel()
	producerErr := <-producersDone
	if consumeErr != nil {
		return consumeErr
	}
	if producerErr != nil && !errors.Is(producerErr, context.Canceled) {
		return producerErr
	}
	return nil
}

// RunPartitionedNearMiss reads all partitions in parallel and feeds the rows to consume.
// From: apstndb/spanner-mycli#666
// the parent ctx is kept separate from the child, and its error is returned when the caller cancelled
//
// ok: swallowcancel
func RunPartitionedNearMiss(ctx context.Context, parts []Partition, consume func(Row) error) error {
	childCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	rows := make(chan Row)
	g, gctx := errgroup.WithContext(childCtx)
	for _, p := range parts {
		g.Go(func() error { return p.Read(gctx, rows) })
	}
	producersDone := make(chan error, 1)
	go func() {
		producersDone <- g.Wait()
		close(rows)
	}()

	consumeErr := drain(rows, consume)
	cancel()
	producerErr := <-producersDone
	if consumeErr != nil {
		return consumeErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if producerErr != nil && !errors.Is(producerErr, context.Canceled) {
		return producerErr
	}
	return nil
}

// ---- any-llm-go-style streaming wrapper ----

type Chunk struct{ Text string }

type Upstream interface {
	Stream(ctx context.Context, prompt string) (<-chan Chunk, <-chan error)
}

type Gateway struct{ upstream Upstream }

// CompletionStream forwards upstream chunks and errors to the caller.
// From: mozilla-ai/any-llm-go#85
// on ctx.Done the forwarder returns without putting ctx.Err() on errs, so the consumer reads nil from the closed channel and takes a cut-off stream as complete
//
// bug: swallowcancel
func (g *Gateway) CompletionStream(ctx context.Context, prompt string) (<-chan Chunk, <-chan error) {
	chunks := make(chan Chunk)
	errs := make(chan error, 1)
	upChunks, upErrs := g.upstream.Stream(ctx, prompt)
	go func() {
		defer close(errs)
		defer close(chunks)
		for {
			select {
			case <-ctx.Done():
				return
			case c, ok := <-upChunks:
				if !ok {
					if err := <-upErrs; err != nil {
						errs <- err
					}
					return
				}
				select {
				case chunks <- c:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return chunks, errs
}

// CompletionStreamNearMiss forwards upstream chunks and errors to the caller.
// From: mozilla-ai/any-llm-go#85
// both ctx.Done branches put ctx.Err() on the buffered error channel before closing it
//
// ok: swallowcancel
func (g *Gateway) CompletionStreamNearMiss(ctx context.Context, prompt string) (<-chan Chunk, <-chan error) {
	chunks := make(chan Chunk)
	errs := make(chan error, 1)
	upChunks, upErrs := g.upstream.Stream(ctx, prompt)
	go func() {
		defer close(errs)
		defer close(chunks)
		for {
			select {
			case <-ctx.Done():
				errs <- ctx.Err()
				return
			case c, ok := <-upChunks:
				if !ok {
					if err := <-upErrs; err != nil {
						errs <- err
					}
					return
				}
				select {
				case chunks <- c:
				case <-ctx.Done():
					errs <- ctx.Err()
					return
				}
			}
		}
	}()
	return chunks, errs
}

// ---- tidb-style distributed task executor ----

type TaskState int

const (
	StatePending TaskState = iota
	StateSucceed
	StateFailed
)

type Subtask struct{ ID int64 }

type Task struct {
	ID       int64
	State    TaskState
	Subtasks []Subtask
}

type Executor struct {
	run func(ctx context.Context, st Subtask) error
}

// RunTask executes every subtask and records the task's final state.
// From: pingcap/tidb#45622
// a subtask that fails with context.Canceled is only logged and skipped, so the task is marked StateSucceed although that subtask never ran to completion
//
// bug: swallowcancel
func (e *Executor) RunTask(ctx context.Context, task *Task) error {
	var firstErr error
	for _, st := range task.Subtasks {
		if err := e.run(ctx, st); err != nil {
			if errors.Is(err, context.Canceled) {
				log.Printf("task %d: subtask %d canceled", task.ID, st.ID)
				continue
			}
			firstErr = err
			break
		}
	}
	if firstErr != nil {
		task.State = StateFailed
		return firstErr
	}
	task.State = StateSucceed
	return nil
}

// RunTaskNearMiss executes every subtask and records the task's final state.
// From: pingcap/tidb#45622
// a cancelled subtask fails the task like any other error and the error is returned
//
// ok: swallowcancel
func (e *Executor) RunTaskNearMiss(ctx context.Context, task *Task) error {
	for _, st := range task.Subtasks {
		if err := e.run(ctx, st); err != nil {
			if errors.Is(err, context.Canceled) {
				log.Printf("task %d: subtask %d canceled", task.ID, st.ID)
			}
			task.State = StateFailed
			return fmt.Errorf("task %d subtask %d: %w", task.ID, st.ID, err)
		}
	}
	task.State = StateSucceed
	return nil
}

// ---- suspicious but correct ----

type Watcher struct {
	cancel context.CancelFunc
	done   chan error
}

// Helper.
//
// ok: swallowcancel
func StartWatcher(parent context.Context, loop func(context.Context) error) *Watcher {
	ctx, cancel := context.WithCancel(parent)
	w := &Watcher{cancel: cancel, done: make(chan error, 1)}
	go func() { w.done <- loop(ctx) }()
	return w
}

// Stop cancels the watcher loop and waits for it to exit.
// the only cancellation filtered is the one Stop itself just issued; the parent context of the loop is not consulted, so nothing the caller asked for is lost
//
// ok: swallowcancel
func (w *Watcher) Stop() error {
	w.cancel()
	err := <-w.done
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// UploadAll uploads each file, skipping files that fail for their own reasons.
// per-file errors are skipped, but the context is checked before each upload and its error is returned, so cancellation is never mistaken for completion
//
// ok: swallowcancel
func UploadAll(ctx context.Context, files []string, upload func(context.Context, string) error) (int, error) {
	n := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if err := upload(ctx, f); err != nil {
			if ctx.Err() != nil {
				return n, fmt.Errorf("upload %s: %w", f, err)
			}
			log.Printf("skip %s: %v", f, err)
			continue
		}
		n++
	}
	return n, nil
}

// FlushOnShutdown logs a cancelled flush but still returns it.
// the cancellation is logged at a low level and then returned unchanged, so callers still see it
//
// ok: swallowcancel
func FlushOnShutdown(ctx context.Context, flush func(context.Context) error) error {
	err := flush(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		log.Printf("flush interrupted: %v", err)
	}
	return err
}
