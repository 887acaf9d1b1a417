// Package swallow holds cancellation errors that are dropped, turned into
// nil, or logged and continued past.
package swallow

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key  string
	Size int64
}

type listPage struct {
	Objects    []ObjectInfo
	NextMarker string
	Truncated  bool
}

// PageFetcher returns one page of a bucket listing.
type PageFetcher interface {
	FetchPage(ctx context.Context, bucket, marker string) (listPage, error)
}

// ObjectLister walks bucket listings page by page.
type ObjectLister struct {
	fetch PageFetcher
}

// NewObjectLister builds a lister over fetch.
//
// ok: swallowcancel
func NewObjectLister(fetch PageFetcher) *ObjectLister {
	return &ObjectLister{fetch: fetch}
}

// Objects yields every object in bucket.
// From: minio/minio-go#2121
// when ctx is cancelled between pages or objects the sequence simply ends, so
// the caller's range loop finishes as if the listing were complete
//
// bug: swallowcancel
func (l *ObjectLister) Objects(ctx context.Context, bucket string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		marker := ""
		for {
			if ctx.Err() != nil {
				return
			}
			page, err := l.fetch.FetchPage(ctx, bucket, marker)
			if err != nil {
				yield(ObjectInfo{}, err)
				return
			}
			for _, obj := range page.Objects {
				if ctx.Err() != nil {
					return
				}
				if !yield(obj, nil) {
					return
				}
			}
			if !page.Truncated {
				return
			}
			marker = page.NextMarker
		}
	}
}

// ObjectsNearMiss yields every object in bucket and ends with ctx's error
// when the listing is cut short by cancellation.
// From: minio/minio-go#2121
//
// ok: swallowcancel
func (l *ObjectLister) ObjectsNearMiss(ctx context.Context, bucket string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		marker := ""
		for {
			if err := ctx.Err(); err != nil {
				yield(ObjectInfo{}, err)
				return
			}
			page, err := l.fetch.FetchPage(ctx, bucket, marker)
			if err != nil {
				yield(ObjectInfo{}, err)
				return
			}
			for _, obj := range page.Objects {
				if err := ctx.Err(); err != nil {
					yield(ObjectInfo{}, err)
					return
				}
				if !yield(obj, nil) {
					return
				}
			}
			if !page.Truncated {
				return
			}
			marker = page.NextMarker
		}
	}
}

// Chunk is one server-sent event of a chat completion.
type Chunk struct {
	Data  string
	Final bool
}

// ChatProvider turns an upstream SSE body into chunks.
type ChatProvider struct {
	name string
}

// NewChatProvider names a provider.
//
// ok: swallowcancel
func NewChatProvider(name string) *ChatProvider {
	return &ChatProvider{name: name}
}

// closeOnCancel closes body when ctx ends, unblocking a pending Read.
//
// ok: swallowcancel
func closeOnCancel(ctx context.Context, body io.Closer) (stop func() bool) {
	return context.AfterFunc(ctx, func() { _ = body.Close() })
}

// StreamChat forwards the SSE lines of body to emit.
// From: maximhq/bifrost#1298
// cancellation closes the body, the scanner then stops without an error and
// the function sends the normal final chunk and returns nil
//
// bug: swallowcancel
func (p *ChatProvider) StreamChat(ctx context.Context, body io.ReadCloser, emit func(Chunk) error) error {
	stop := closeOnCancel(ctx, body)
	defer stop()
	defer body.Close()

	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "" {
			continue
		}
		if err := emit(Chunk{Data: data}); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("%s: reading stream: %w", p.name, err)
	}
	return emit(Chunk{Final: true})
}

// StreamChatNearMiss forwards the SSE lines of body to emit and reports the
// context error instead of a final chunk when the stream was cut off.
// From: maximhq/bifrost#1298
//
// ok: swallowcancel
func (p *ChatProvider) StreamChatNearMiss(ctx context.Context, body io.ReadCloser, emit func(Chunk) error) error {
	stop := closeOnCancel(ctx, body)
	defer stop()
	defer body.Close()

	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "" {
			continue
		}
		if err := emit(Chunk{Data: data}); err != nil {
			return err
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: reading stream: %w", p.name, err)
	}
	return emit(Chunk{Final: true})
}

// errListTruncated marks a listing cut short by the walk budget; callers
// keep the partial result and only warn.
var errListTruncated = errors.New("listing truncated")

const maxListPages = 64

// listAll pages through list until the cursor runs out or the walk budget
// ends.
// From: praetorian-inc/augustus#274
// walkCtx is derived from ctx, so a cancelled or expired caller context is
// also reported as errListTruncated, which callers treat as a warning
//
// bug: swallowcancel
func listAll[T any](ctx context.Context, budget time.Duration, list func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	walkCtx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	var out []T
	cursor := ""
	for range maxListPages {
		if walkCtx.Err() != nil {
			return out, errListTruncated
		}
		items, next, err := list(walkCtx, cursor)
		if err != nil {
			return out, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
	return out, errListTruncated
}

// listAllNearMiss pages through list and only reports errListTruncated when
// the walk's own budget ran out; the caller's cancellation is returned as is.
// From: praetorian-inc/augustus#274
//
// ok: swallowcancel
func listAllNearMiss[T any](ctx context.Context, budget time.Duration, list func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	walkCtx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	var out []T
	cursor := ""
	for range maxListPages {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if walkCtx.Err() != nil {
			return out, errListTruncated
		}
		items, next, err := list(walkCtx, cursor)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return out, ctxErr
			}
			return out, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
	return out, errListTruncated
}

// Tool is one tool advertised by an MCP server.
type Tool struct {
	Name string
}

// Recon inventories a remote MCP server.
type Recon struct {
	budget time.Duration
	page   func(ctx context.Context, cursor string) ([]Tool, string, error)
	warn   func(format string, args ...any)
}

// Tools lists every tool, keeping a budget-truncated list with a warning.
//
// ok: swallowcancel
func (r *Recon) Tools(ctx context.Context) ([]Tool, error) {
	tools, err := listAllNearMiss(ctx, r.budget, r.page)
	if errors.Is(err, errListTruncated) {
		r.warn("tool listing truncated after %d tools", len(tools))
		return tools, nil
	}
	return tools, err
}

// Block is one in-memory block waiting to be shipped.
type Block struct {
	ID   string
	Data []byte
}

// BlockStore persists blocks to object storage.
type BlockStore interface {
	Upload(ctx context.Context, b Block) error
}

// Flusher ships every pending block when an ingester is retired.
type Flusher struct {
	store   BlockStore
	log     *log.Logger
	mu      sync.Mutex
	pending []Block
}

// Flush uploads all pending blocks.
// From: cortexproject/cortex#2879
// upload failures, including context.Canceled from a shutdown, are only
// logged; Flush returns nil and the process exits as if everything shipped
//
// bug: swallowcancel
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	blocks := f.pending
	f.pending = nil
	f.mu.Unlock()

	shipped := 0
	for _, b := range blocks {
		if err := f.store.Upload(ctx, b); err != nil {
			f.log.Printf("flusher: upload of block %s failed: %v", b.ID, err)
			continue
		}
		shipped++
	}
	f.log.Printf("flusher: shipped %d of %d blocks", shipped, len(blocks))
	return nil
}

// FlushNearMiss uploads all pending blocks and returns the joined upload
// failures, stopping as soon as the context ends.
// From: cortexproject/cortex#2879
//
// ok: swallowcancel
func (f *Flusher) FlushNearMiss(ctx context.Context) error {
	f.mu.Lock()
	blocks := f.pending
	f.pending = nil
	f.mu.Unlock()

	var errs []error
	shipped := 0
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if err := f.store.Upload(ctx, b); err != nil {
			errs = append(errs, fmt.Errorf("block %s: %w", b.ID, err))
			continue
		}
		shipped++
	}
	f.log.Printf("flusher: shipped %d of %d blocks", shipped, len(blocks))
	return errors.Join(errs...)
}

// Object is one Kubernetes object a job creates.
type Object struct {
	Kind, Name string
}

// ObjectRunner creates one object.
type ObjectRunner interface {
	Create(ctx context.Context, obj Object) error
}

// JobExecutor creates the objects of a benchmark job in parallel.
type JobExecutor struct {
	runner ObjectRunner
	limit  int
}

// RunJob creates objs concurrently.
// From: kube-burner/kube-burner#1109
// each goroutine logs its failure and returns nil, so when the job context
// is cancelled Wait returns nil and the job is reported as finished
//
// bug: swallowcancel
func (e *JobExecutor) RunJob(ctx context.Context, objs []Object) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.limit)
	for _, obj := range objs {
		g.Go(func() error {
			if err := e.runner.Create(gctx, obj); err != nil {
				log.Printf("creating %s/%s: %v", obj.Kind, obj.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// RunJobNearMiss creates objs concurrently and returns the first failure,
// which is the context error when the job is cancelled.
// From: kube-burner/kube-burner#1109
//
// ok: swallowcancel
func (e *JobExecutor) RunJobNearMiss(ctx context.Context, objs []Object) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.limit)
	for _, obj := range objs {
		g.Go(func() error {
			if err := e.runner.Create(gctx, obj); err != nil {
				return fmt.Errorf("creating %s/%s: %w", obj.Kind, obj.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// Upload is a streaming upload whose parts are consumed by a segment
// uploader owned by the caller.
type Upload struct {
	ctx   context.Context
	parts chan<- []byte
}

// NewUpload binds an upload to ctx and the part queue.
//
// ok: swallowcancel
func NewUpload(ctx context.Context, parts chan<- []byte) *Upload {
	return &Upload{ctx: ctx, parts: parts}
}

// Write queues p as the next part.
// From: storj/uplink#153
// when the upload context is cancelled Write reports the whole buffer as
// written with a nil error although the part was dropped
//
// bug: swallowcancel
func (u *Upload) Write(p []byte) (int, error) {
	buf := append([]byte(nil), p...)
	select {
	case u.parts <- buf:
		return len(p), nil
	case <-u.ctx.Done():
		return len(p), nil
	}
}

// WriteNearMiss queues p as the next part and reports the context error when
// the upload was cancelled first.
// From: storj/uplink#153
//
// ok: swallowcancel
func (u *Upload) WriteNearMiss(p []byte) (int, error) {
	buf := append([]byte(nil), p...)
	select {
	case u.parts <- buf:
		return len(p), nil
	case <-u.ctx.Done():
		return 0, u.ctx.Err()
	}
}
