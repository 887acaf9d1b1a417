package untracked

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Item is one record read from a feed.
type Item struct {
	Key  string
	Body []byte
}

// Feed is an open stream of items; Next returns io.EOF at the end.
type Feed interface {
	Next(ctx context.Context) (Item, error)
	Close() error
}

// Source is one upstream the aggregator can open.
type Source interface {
	Name() string
	Open(ctx context.Context) (Feed, error)
}

// drain hands every item of feed to sink until EOF or an error.
// ok: untrackedgo
func drain(ctx context.Context, feed Feed, sink func(Item)) error {
	for {
		it, err := feed.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		sink(it)
	}
}

// PullAll opens each source and drains it in its own group goroutine. When opening a later source
// fails it returns immediately: the goroutines already started are never waited for and the group's
// context is never canceled, so they keep pulling from their feeds after PullAll has returned.
// From: golang/go#57534
// bug: untrackedgo
func PullAll(ctx context.Context, sources []Source, sink func(Item)) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, src := range sources {
		feed, err := src.Open(gctx)
		if err != nil {
			return fmt.Errorf("open %s: %w", src.Name(), err)
		}
		g.Go(func() error {
			defer feed.Close()
			return drain(gctx, feed, sink)
		})
	}
	return g.Wait()
}

// PullAllJoined reports an open failure through the group itself: the failing g.Go cancels gctx, and
// the single g.Wait at the end joins every drain goroutine on every path.
// ok: untrackedgo
func PullAllJoined(ctx context.Context, sources []Source, sink func(Item)) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, src := range sources {
		feed, err := src.Open(gctx)
		if err != nil {
			openErr := fmt.Errorf("open %s: %w", src.Name(), err)
			g.Go(func() error { return openErr })
			break
		}
		g.Go(func() error {
			defer feed.Close()
			return drain(gctx, feed, sink)
		})
	}
	return g.Wait()
}

// Artifact is one build output to upload.
type Artifact struct {
	Key  string
	Data []byte
	Sum  string
}

// BlobStore stores artifacts.
type BlobStore interface {
	Put(ctx context.Context, key string, data []byte) error
}

// ManifestIndex records uploaded keys; callers read it once the upload call has returned.
type ManifestIndex struct {
	mu   sync.Mutex
	sums map[string]string
}

// Add records key's checksum.
// ok: untrackedgo
func (m *ManifestIndex) Add(key, sum string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sums == nil {
		m.sums = make(map[string]string)
	}
	m.sums[key] = sum
}

// UploadArtifacts uploads in an errgroup, but each group function hands the manifest update to a bare
// go statement. g.Wait only waits for the group functions, so manifest updates are still running when
// UploadArtifacts returns and the caller reads a partial manifest.
// From: open-feature/go-sdk-contrib#716
// bug: untrackedgo
func UploadArtifacts(ctx context.Context, store BlobStore, idx *ManifestIndex, arts []Artifact) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, a := range arts {
		g.Go(func() error {
			if err := store.Put(gctx, a.Key, a.Data); err != nil {
				return fmt.Errorf("put %s: %w", a.Key, err)
			}
			go idx.Add(a.Key, a.Sum)
			return nil
		})
	}
	return g.Wait()
}

// UploadArtifactsInline performs the manifest update inside the group function, so g.Wait covers it.
// ok: untrackedgo
func UploadArtifactsInline(ctx context.Context, store BlobStore, idx *ManifestIndex, arts []Artifact) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, a := range arts {
		g.Go(func() error {
			if err := store.Put(gctx, a.Key, a.Data); err != nil {
				return fmt.Errorf("put %s: %w", a.Key, err)
			}
			idx.Add(a.Key, a.Sum)
			return nil
		})
	}
	return g.Wait()
}

// Doc is a document to index.
type Doc struct {
	ID   string
	Text string
}

// Indexer indexes one document.
type Indexer interface {
	Index(ctx context.Context, d Doc) error
}

// IndexDocuments submits documents to a limited group and checks the caller's context between
// submissions. On cancellation it returns ctx.Err() straight out of the loop, skipping g.Wait, so
// the indexing goroutines already submitted keep running after the call returns.
// From: openfga/openfga#1564
// bug: untrackedgo
func IndexDocuments(ctx context.Context, docs []Doc, ix Indexer) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.Go(func() error { return ix.Index(gctx, d) })
	}
	return g.Wait()
}

// IndexDocumentsJoined stops submitting on cancellation but still waits for the group before
// reporting either the group's error or the cancellation.
// ok: untrackedgo
func IndexDocumentsJoined(ctx context.Context, docs []Doc, ix Indexer) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, d := range docs {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { return ix.Index(gctx, d) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// Image is one image to resize.
type Image struct {
	Path string
}

// Resizer resizes one image.
type Resizer interface {
	Resize(ctx context.Context, img Image) error
}

// ResizeImages bounds concurrency with a channel semaphore, then looks for an error with a
// non-blocking receive right after the loop. Up to parallel resizes are still in flight at that
// point; the function returns without waiting for them and they finish (and fail) unobserved.
// From: buildkite/agent#2477
// bug: untrackedgo
func ResizeImages(ctx context.Context, imgs []Image, r Resizer, parallel int) error {
	sem := make(chan struct{}, parallel)
	errCh := make(chan error, len(imgs))
	for _, img := range imgs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if err := r.Resize(ctx, img); err != nil {
				errCh <- fmt.Errorf("resize %s: %w", img.Path, err)
			}
		}()
	}
	select {
	case err := <-errCh:
		return err
	default:
		return nil
	}
}

// ResizeImagesDrained refills the semaphore to capacity after the loop, which can only succeed once
// every in-flight resize has released its slot, so all goroutines are joined before the error is read.
// ok: untrackedgo
func ResizeImagesDrained(ctx context.Context, imgs []Image, r Resizer, parallel int) error {
	sem := make(chan struct{}, parallel)
	errCh := make(chan error, len(imgs))
	for _, img := range imgs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if err := r.Resize(ctx, img); err != nil {
				errCh <- fmt.Errorf("resize %s: %w", img.Path, err)
			}
		}()
	}
	for range parallel {
		sem <- struct{}{}
	}
	select {
	case err := <-errCh:
		return err
	default:
		return nil
	}
}
