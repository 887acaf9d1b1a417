package swallow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Query caching.

// Row is one result row.
type Row map[string]any

// RowStreamer streams the rows of a table, calling emit for each.
type RowStreamer interface {
	Stream(ctx context.Context, table string, emit func(Row)) error
}

// QueryCache serves table listings, caching complete result sets.
type QueryCache struct {
	plugin RowStreamer
	mu     sync.Mutex
	sets   map[string][]Row
}

// ok: swallowcancel
func (c *QueryCache) get(table string) ([]Row, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows, ok := c.sets[table]
	return rows, ok
}

// ok: swallowcancel
func (c *QueryCache) put(table string, rows []Row) {
	c.mu.Lock()
	c.sets[table] = rows
	c.mu.Unlock()
}

// List emits every row of table, from the cache when a complete result set
// is cached, otherwise from the plugin, caching what it streamed.
// From: turbot/steampipe-plugin-sdk#340
// bug: swallowcancel
func (c *QueryCache) List(ctx context.Context, table string, emit func(Row)) error {
	if rows, ok := c.get(table); ok {
		for _, r := range rows {
			emit(r)
		}
		return nil
	}
	var all []Row
	err := c.plugin.Stream(ctx, table, func(r Row) {
		all = append(all, r)
		emit(r)
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stream %s: %w", table, err)
	}
	c.put(table, all)
	return nil
}

// ListNearMiss emits every row of table, from the cache when a complete
// result set is cached, otherwise from the plugin, caching what it streamed.
// ok: swallowcancel
func (c *QueryCache) ListNearMiss(ctx context.Context, table string, emit func(Row)) error {
	if rows, ok := c.get(table); ok {
		for _, r := range rows {
			emit(r)
		}
		return nil
	}
	var all []Row
	err := c.plugin.Stream(ctx, table, func(r Row) {
		all = append(all, r)
		emit(r)
	})
	if err != nil {
		return fmt.Errorf("stream %s: %w", table, err)
	}
	c.put(table, all)
	return nil
}

// ---------------------------------------------------------------------------
// Queue draining.

// Message is a received queue message.
type Message struct {
	ID      string
	Receipt string
	Body    []byte
}

// MessageQueue is a pull queue.
type MessageQueue interface {
	Receive(ctx context.Context, max int) ([]Message, error)
	Delete(ctx context.Context, receipt string) error
}

// Consumer drains a queue into a handler.
type Consumer struct {
	queue  MessageQueue
	batch  int
	handle func(ctx context.Context, m Message) error
	logger *log.Logger
}

// Drain handles messages until a receive comes back empty and reports how
// many it handled; the caller then considers the queue drained.
// From: worldcoin/sqs-client#243
// bug: swallowcancel
func (c *Consumer) Drain(ctx context.Context) (int, error) {
	handled := 0
	for {
		msgs, err := c.queue.Receive(ctx, c.batch)
		if err != nil {
			c.logger.Printf("receive: %v", err)
			break
		}
		if len(msgs) == 0 {
			return handled, nil
		}
		for _, m := range msgs {
			if err := c.handle(ctx, m); err != nil {
				return handled, fmt.Errorf("handle %s: %w", m.ID, err)
			}
			if err := c.queue.Delete(ctx, m.Receipt); err != nil {
				return handled, fmt.Errorf("delete %s: %w", m.ID, err)
			}
			handled++
		}
	}
	return handled, nil
}

// DrainNearMiss handles messages until a receive comes back empty and
// reports how many it handled; the caller then considers the queue drained.
// ok: swallowcancel
func (c *Consumer) DrainNearMiss(ctx context.Context) (int, error) {
	handled := 0
	for {
		msgs, err := c.queue.Receive(ctx, c.batch)
		if err != nil {
			return handled, fmt.Errorf("receive: %w", err)
		}
		if len(msgs) == 0 {
			return handled, nil
		}
		for _, m := range msgs {
			if err := c.handle(ctx, m); err != nil {
				return handled, fmt.Errorf("handle %s: %w", m.ID, err)
			}
			if err := c.queue.Delete(ctx, m.Receipt); err != nil {
				return handled, fmt.Errorf("delete %s: %w", m.ID, err)
			}
			handled++
		}
	}
}

// ---------------------------------------------------------------------------
// Bulk copies.

// ObjectCopier copies one object.
type ObjectCopier interface {
	Copy(ctx context.Context, key string) error
}

// Copier copies object sets.
type Copier struct {
	objects ObjectCopier
}

// CopyAll copies every key and returns how many were copied along with the
// failures, leaving out the noise of interrupted copies.
// From: peak/s5cmd#117
// bug: swallowcancel
func (c *Copier) CopyAll(ctx context.Context, keys []string) (int, error) {
	var errs []error
	copied := 0
	for _, k := range keys {
		if err := c.objects.Copy(ctx, k); err != nil {
			if errors.Is(err, context.Canceled) {
				continue
			}
			errs = append(errs, fmt.Errorf("copy %s: %w", k, err))
			continue
		}
		copied++
	}
	return copied, errors.Join(errs...)
}

// CopyAllNearMiss copies every key and returns how many were copied along
// with the failures; an interruption ends the run and is reported.
// ok: swallowcancel
func (c *Copier) CopyAllNearMiss(ctx context.Context, keys []string) (int, error) {
	var errs []error
	copied := 0
	for _, k := range keys {
		if err := c.objects.Copy(ctx, k); err != nil {
			if ctx.Err() != nil {
				errs = append(errs, fmt.Errorf("copy %s: %w", k, err))
				return copied, errors.Join(errs...)
			}
			errs = append(errs, fmt.Errorf("copy %s: %w", k, err))
			continue
		}
		copied++
	}
	return copied, errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// Serve runs srv until ctx ends and then shuts it down within grace.
// ErrServerClosed is the expected result of Shutdown, not a cancellation, so
// it is not reported; the cancellation that ended the server is.
// ok: swallowcancel
func Serve(ctx context.Context, srv *http.Server, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	serr := srv.Shutdown(sctx)
	lerr := <-errc
	if serr != nil {
		return fmt.Errorf("shutdown: %w", serr)
	}
	if lerr != nil && !errors.Is(lerr, http.ErrServerClosed) {
		return lerr
	}
	return ctx.Err()
}

// Searcher looks for a key in one shard.
type Searcher interface {
	Find(ctx context.Context, key string) (string, bool, error)
}

// FindAny asks every shard for key and returns the first hit. Once a hit is
// found it cancels the remaining searches itself, so a Canceled from them is
// expected; a cancellation of the caller's ctx is still returned.
// ok: swallowcancel
func FindAny(ctx context.Context, shards []Searcher, key string) (string, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(sctx)
	var (
		mu    sync.Mutex
		found string
		hit   bool
	)
	for _, s := range shards {
		g.Go(func() error {
			v, ok, err := s.Find(gctx, key)
			if err != nil {
				return err
			}
			if ok {
				mu.Lock()
				if !hit {
					found, hit = v, true
				}
				mu.Unlock()
				cancel()
			}
			return nil
		})
	}
	err := g.Wait()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return "", ctxErr
	}
	mu.Lock()
	defer mu.Unlock()
	if hit {
		return found, nil
	}
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("key %s not found", key)
}

// CopyStream copies src to dst. io.EOF from the source is the normal end;
// a cancellation observed between chunks is returned.
// ok: swallowcancel
func CopyStream(ctx context.Context, dst io.Writer, src io.Reader, logger *log.Logger) (int64, error) {
	buf := make([]byte, 32<<10)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			logger.Printf("copy interrupted after %d bytes: %v", total, err)
			return total, err
		}
		n, rerr := src.Read(buf)
		if n > 0 {
			w, werr := dst.Write(buf[:n])
			total += int64(w)
			if werr != nil {
				return total, fmt.Errorf("write: %w", werr)
			}
		}
		if errors.Is(rerr, io.EOF) {
			return total, nil
		}
		if rerr != nil {
			return total, fmt.Errorf("read: %w", rerr)
		}
	}
}
