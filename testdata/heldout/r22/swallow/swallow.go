// Package swallow holds cases where an error that can carry a context
// cancellation is dropped, turned into nil, or logged and skipped.
package swallow

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Logger is the minimal logging surface the cases use.
type Logger interface {
	Printf(format string, args ...any)
}

// ---------------------------------------------------------------------------
// codenotary/immudb#2049: waiting for the indexer to catch up.

// Indexer reports how far the background indexer has progressed.
type Indexer interface {
	LastIndexedTx() (uint64, error)
}

// TxStore waits on its indexer before serving reads.
type TxStore struct {
	index    Indexer
	mu       sync.Mutex
	progress chan struct{}
}

// NewTxStore builds a store around an indexer.
// ok: swallowcancel
func NewTxStore(idx Indexer) *TxStore {
	return &TxStore{index: idx, progress: make(chan struct{})}
}

// notifyProgress wakes every waiter after the indexer advanced.
// ok: swallowcancel
func (s *TxStore) notifyProgress() {
	s.mu.Lock()
	close(s.progress)
	s.progress = make(chan struct{})
	s.mu.Unlock()
}

// progressCh returns the channel closed on the next indexer advance.
// ok: swallowcancel
func (s *TxStore) progressCh() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress
}

// WaitForIndexedTx blocks until txID is indexed or ctx ends.
// From: codenotary/immudb#2049
// When ctx is cancelled the loop returns the last err, which is always nil
// at that point, so a caller sees "indexed up to N" for a tx that never was.
// bug: swallowcancel
func (s *TxStore) WaitForIndexedTx(ctx context.Context, txID uint64) (uint64, error) {
	for {
		indexed, err := s.index.LastIndexedTx()
		if err != nil {
			return 0, fmt.Errorf("reading index progress: %w", err)
		}
		if indexed >= txID {
			return indexed, nil
		}
		wake := s.progressCh()
		if ctx.Err() != nil {
			return indexed, err
		}
		select {
		case <-ctx.Done():
		case <-wake:
		}
	}
}

// WaitForIndexedTxFixed is the corrected wait: it reports the context error.
// From: codenotary/immudb#2049
// ok: swallowcancel
func (s *TxStore) WaitForIndexedTxFixed(ctx context.Context, txID uint64) (uint64, error) {
	for {
		indexed, err := s.index.LastIndexedTx()
		if err != nil {
			return 0, fmt.Errorf("reading index progress: %w", err)
		}
		if indexed >= txID {
			return indexed, nil
		}
		wake := s.progressCh()
		select {
		case <-ctx.Done():
			return indexed, fmt.Errorf("waiting for tx %d (indexed %d): %w", txID, indexed, ctx.Err())
		case <-wake:
		}
	}
}

// ---------------------------------------------------------------------------
// d-kuro/kubectl-fuzzy#83: collecting candidates for the fuzzy finder.

// Resource is one Kubernetes object offered to the finder.
type Resource struct {
	Namespace string
	Name      string
}

// Collector gathers resources streamed from a watch.
type Collector struct {
	limit int
}

// Collect drains the watch stream into a slice the finder can show.
// From: d-kuro/kubectl-fuzzy#83
// On ctx.Done it returns whatever was collected with a nil error, so the
// finder renders a truncated list as if it were the whole namespace.
// bug: swallowcancel
func (c *Collector) Collect(ctx context.Context, stream <-chan Resource) ([]Resource, error) {
	var out []Resource
	for {
		select {
		case <-ctx.Done():
			return out, nil
		case r, ok := <-stream:
			if !ok {
				return out, nil
			}
			out = append(out, r)
			if c.limit > 0 && len(out) >= c.limit {
				return out, nil
			}
		}
	}
}

// CollectFixed returns ctx.Err() when the context ends before the stream.
// From: d-kuro/kubectl-fuzzy#83
// ok: swallowcancel
func (c *Collector) CollectFixed(ctx context.Context, stream <-chan Resource) ([]Resource, error) {
	var out []Resource
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r, ok := <-stream:
			if !ok {
				return out, nil
			}
			out = append(out, r)
			if c.limit > 0 && len(out) >= c.limit {
				return out, nil
			}
		}
	}
}

// ---------------------------------------------------------------------------
// rqlite/rqlite#2473: query results and the DB context error.

// Row is one result row as returned to HTTP clients.
type Row struct {
	Values []any
}

// QueryResult is the response body of a read.
type QueryResult struct {
	Columns []string
	Rows    []Row
}

// ReadDB serves SELECT statements.
type ReadDB struct {
	db *sql.DB
}

// Query runs a read and converts it into a QueryResult.
// From: rqlite/rqlite#2473
// rows.Next stops early when ctx is cancelled, but rows.Err() is never read,
// so a cut-off result set goes back to the client as a complete answer.
// bug: swallowcancel
func (r *ReadDB) Query(ctx context.Context, stmt string, args ...any) (*QueryResult, error) {
	rows, err := r.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &QueryResult{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, Row{Values: vals})
	}
	return res, nil
}

// QueryChecked is the fixed read: it surfaces rows.Err() and ctx errors.
// From: rqlite/rqlite#2473
// ok: swallowcancel
func (r *ReadDB) QueryChecked(ctx context.Context, stmt string, args ...any) (*QueryResult, error) {
	rows, err := r.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &QueryResult{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, Row{Values: vals})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("iterating rows: %w", err)
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// k1LoW/deck#423: uploading slide images concurrently.

// Image is a local image referenced from a slide.
type Image struct {
	Path string
	URL  string
}

// Uploader stores an image and returns its public URL.
type Uploader interface {
	Upload(ctx context.Context, path string) (string, error)
}

// Deck renders a presentation.
type Deck struct {
	uploader Uploader
	logger   Logger
	parallel int
}

// UploadImages uploads every image before the slides are rendered.
// From: k1LoW/deck#423
// A failed or cancelled upload is only logged and the goroutine returns nil,
// so the group is never cancelled and Apply carries on with missing images.
// bug: swallowcancel
func (d *Deck) UploadImages(ctx context.Context, images []*Image) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.parallel)
	for _, img := range images {
		g.Go(func() error {
			url, err := d.uploader.Upload(gctx, img.Path)
			if err != nil {
				d.logger.Printf("failed to upload image %s: %v", img.Path, err)
				return nil
			}
			img.URL = url
			return nil
		})
	}
	return g.Wait()
}

// UploadImagesFailFast returns the upload error so the group cancels.
// From: k1LoW/deck#423
// ok: swallowcancel
func (d *Deck) UploadImagesFailFast(ctx context.Context, images []*Image) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.parallel)
	for _, img := range images {
		g.Go(func() error {
			url, err := d.uploader.Upload(gctx, img.Path)
			if err != nil {
				return fmt.Errorf("upload image %s: %w", img.Path, err)
			}
			img.URL = url
			return nil
		})
	}
	return g.Wait()
}

// ---------------------------------------------------------------------------
// go-kivik/couchdb#177: reading a continuous changes feed.

// Change is one entry of the _changes feed.
type Change struct {
	Seq string `json:"seq"`
	ID  string `json:"id"`
}

// ChangesFeed decodes a line-delimited changes response body.
type ChangesFeed struct {
	r *bufio.Reader
}

// NewChangesFeed wraps a response body.
// ok: swallowcancel
func NewChangesFeed(body io.Reader) *ChangesFeed {
	return &ChangesFeed{r: bufio.NewReader(body)}
}

// Next returns the next change, or io.EOF at the end of the feed.
// From: go-kivik/couchdb#177
// When the request context is cancelled the body read fails and Next maps
// that to io.EOF, so the caller's loop ends as if the feed were complete.
// bug: swallowcancel
func (f *ChangesFeed) Next(ctx context.Context) (*Change, error) {
	for {
		line, err := f.r.ReadBytes('\n')
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return nil, io.EOF
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
		}
		if len(line) <= 1 {
			continue
		}
		var ch Change
		if err := json.Unmarshal(line, &ch); err != nil {
			return nil, fmt.Errorf("decoding change: %w", err)
		}
		return &ch, nil
	}
}

// NextChecked keeps io.EOF for a real end and reports cancellation.
// From: go-kivik/couchdb#177
// ok: swallowcancel
func (f *ChangesFeed) NextChecked(ctx context.Context) (*Change, error) {
	for {
		line, err := f.r.ReadBytes('\n')
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return nil, io.EOF
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
		}
		if len(line) <= 1 {
			continue
		}
		var ch Change
		if err := json.Unmarshal(line, &ch); err != nil {
			return nil, fmt.Errorf("decoding change: %w", err)
		}
		return &ch, nil
	}
}

// ---------------------------------------------------------------------------
// livekit/livekit-cli#526: publishing a media file into a room.

// Track streams media until stopped or finished.
type Track interface {
	Stream() error
	Stop()
}

// Publisher publishes local files as tracks.
type Publisher struct {
	open func(path string) (Track, error)
}

// PublishFile streams path into the room until it ends or ctx is done.
// From: livekit/livekit-cli#526
// In the ctx.Done branch it returns err, which still holds the nil from
// open, so an interrupted publish is reported as a finished one.
// bug: swallowcancel
func (p *Publisher) PublishFile(ctx context.Context, path string) error {
	track, err := p.open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- track.Stream() }()

	select {
	case err = <-done:
		return err
	case <-ctx.Done():
		track.Stop()
		<-done
		return err
	}
}

// PublishFileFixed returns the context error when interrupted.
// From: livekit/livekit-cli#526
// ok: swallowcancel
func (p *Publisher) PublishFileFixed(ctx context.Context, path string) error {
	track, err := p.open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- track.Stream() }()

	select {
	case err = <-done:
		return err
	case <-ctx.Done():
		track.Stop()
		<-done
		return ctx.Err()
	}
}

// PublishForDuration publishes for at most d; running out of time is the
// expected way to finish, so it is not an error, but a caller cancel is.
// From: livekit/livekit-cli#526
// ok: swallowcancel
func (p *Publisher) PublishForDuration(ctx context.Context, path string, d time.Duration) error {
	track, err := p.open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- track.Stream() }()

	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err = <-done:
		return err
	case <-timer.C:
		track.Stop()
		return <-done
	case <-ctx.Done():
		track.Stop()
		<-done
		return ctx.Err()
	}
}
