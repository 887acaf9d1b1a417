// Package swallow holds cases where an error that can carry
// context.Canceled / context.DeadlineExceeded is dropped.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"

	"golang.org/x/sync/errgroup"
)

// Pusher sends one record to a remote sink.
type Pusher func(ctx context.Context, rec string) error

// Row is one scanned record.
type Row struct {
	ID  int
	Val string
}

// Source yields rows; it returns ctx.Err() once ctx is done.
type Source interface {
	Next(ctx context.Context) (Row, bool, error)
}

// SyncAll pushes every record; per-record failures are logged and skipped.
// When ctx is canceled every push fails with context.Canceled, the loop logs
// each one and SyncAll returns nil, so the caller records the sync as done.
// From: runreveal/kawa#37
// bug: swallowcancel
func SyncAll(ctx context.Context, recs []string, push Pusher) error {
	for _, r := range recs {
		if err := push(ctx, r); err != nil {
			slog.Warn("push failed, skipping", "rec", r, "err", err)
			continue
		}
	}
	return nil
}

// SyncAllChecked is SyncAll with the fix: a done context stops the loop and
// is returned; other per-record failures are collected and returned.
// ok: swallowcancel
func SyncAllChecked(ctx context.Context, recs []string, push Pusher) error {
	var errs []error
	for _, r := range recs {
		if err := push(ctx, r); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			slog.Warn("push failed, skipping", "rec", r, "err", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Drain must process every queued job before returning. On cancellation it
// returns nil with jobs still queued, so the caller acknowledges the whole
// batch although part of it never ran.
// From: uw-labs/substrate#126
// bug: swallowcancel
func Drain(ctx context.Context, jobs <-chan func() error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case job, ok := <-jobs:
			if !ok {
				return nil
			}
			if err := job(); err != nil {
				return err
			}
		}
	}
}

// DrainChecked reports the cancellation to the caller.
// ok: swallowcancel
func DrainChecked(ctx context.Context, jobs <-chan func() error) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case job, ok := <-jobs:
			if !ok {
				return nil
			}
			if err := job(); err != nil {
				return err
			}
		}
	}
}

// Uploader writes parts of an object.
type Uploader struct {
	Put func(ctx context.Context, part []byte) error
}

// Upload writes all parts; it turns a cancellation into success, so an
// interrupted upload of a partial object is reported as complete.
// From: GoogleContainerTools/skaffold#5686
// bug: swallowcancel
func (u *Uploader) Upload(ctx context.Context, parts [][]byte) error {
	for _, p := range parts {
		if err := u.Put(ctx, p); err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return fmt.Errorf("upload part: %w", err)
		}
	}
	return nil
}

// UploadChecked returns every failure, cancellation included.
// ok: swallowcancel
func (u *Uploader) UploadChecked(ctx context.Context, parts [][]byte) error {
	for _, p := range parts {
		if err := u.Put(ctx, p); err != nil {
			return fmt.Errorf("upload part: %w", err)
		}
	}
	return nil
}

// FetchAll fetches keys concurrently. Each goroutine logs its error and
// returns nil, so Wait returns nil on cancellation and the caller uses a map
// with missing keys as if it were complete.
// From: uw-labs/substrate#126
// bug: swallowcancel
func FetchAll(ctx context.Context, keys []string, get func(context.Context, string) (string, error)) (map[string]string, error) {
	out := make([]string, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range keys {
		g.Go(func() error {
			v, err := get(gctx, k)
			if err != nil {
				slog.Error("fetch failed", "key", k, "err", err)
				return nil
			}
			out[i] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(keys))
	for i, k := range keys {
		if out[i] != "" {
			m[k] = out[i]
		}
	}
	return m, nil
}

// FetchAllChecked propagates each goroutine's error through the group.
// ok: swallowcancel
func FetchAllChecked(ctx context.Context, keys []string, get func(context.Context, string) (string, error)) (map[string]string, error) {
	out := make([]string, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range keys {
		g.Go(func() error {
			v, err := get(gctx, k)
			if err != nil {
				slog.Error("fetch failed", "key", k, "err", err)
				return fmt.Errorf("fetch %s: %w", k, err)
			}
			out[i] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(keys))
	for i, k := range keys {
		m[k] = out[i]
	}
	return m, nil
}

// Collect gathers every value from next. Its signature has no error, so a
// cancellation mid-way yields a truncated slice that looks complete.
// From: influxdata/flux#1228
// bug: swallowcancel
func Collect[T any](ctx context.Context, next func(context.Context) (T, bool, error)) []T {
	var out []T
	for {
		v, ok, err := next(ctx)
		if err != nil || !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

// CollectErr returns the error that stopped collection.
// ok: swallowcancel
func CollectErr[T any](ctx context.Context, next func(context.Context) (T, bool, error)) ([]T, error) {
	var out []T
	for {
		v, ok, err := next(ctx)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, v)
	}
}

// Rows iterates a Source. When Next fails (e.g. with context.Canceled) the
// iterator just stops; a range loop over it cannot tell a cancelled scan
// from a finished one.
// From: licaonfee/selina#19
// bug: swallowcancel
func Rows(ctx context.Context, src Source) iter.Seq[Row] {
	return func(yield func(Row) bool) {
		for {
			r, ok, err := src.Next(ctx)
			if err != nil || !ok {
				return
			}
			if !yield(r) {
				return
			}
		}
	}
}

// RowsErr yields the terminating error as the last element.
// ok: swallowcancel
func RowsErr(ctx context.Context, src Source) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		for {
			r, ok, err := src.Next(ctx)
			if err != nil {
				yield(Row{}, err)
				return
			}
			if !ok {
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Flusher writes buffered data.
type Flusher struct {
	Write func(ctx context.Context, b []byte) error
	buf   [][]byte
}

// Flush writes the buffer; a deferred filter clears a cancellation error
// after the buffer was already dropped, so the unwritten data is lost
// without any error reaching the caller.
// From: runreveal/kawa#37
// bug: swallowcancel
func (f *Flusher) Flush(ctx context.Context) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
	}()
	pending := f.buf
	f.buf = nil
	for _, b := range pending {
		if err := f.Write(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// FlushChecked keeps the unwritten tail and returns the error.
// ok: swallowcancel
func (f *Flusher) FlushChecked(ctx context.Context) error {
	for len(f.buf) > 0 {
		if err := f.Write(ctx, f.buf[0]); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
		f.buf = f.buf[1:]
	}
	return nil
}

// Loop runs a background worker on an internally owned context.
type Loop struct {
	cancel context.CancelFunc
	done   chan error
}

// StartLoop starts work on a context that only Stop cancels.
// ok: swallowcancel
func StartLoop(parent context.Context, work func(context.Context) error) *Loop {
	ctx, cancel := context.WithCancel(parent)
	l := &Loop{cancel: cancel, done: make(chan error, 1)}
	go func() { l.done <- work(ctx) }()
	return l
}

// Stop cancels the loop and ignores the context.Canceled that its own
// cancel caused, but only when the parent did not cancel it first; any
// other error is returned. Looks like swallowing, is deliberate.
// ok: swallowcancel
func (l *Loop) Stop(parent context.Context) error {
	l.cancel()
	err := <-l.done
	if errors.Is(err, context.Canceled) && parent.Err() == nil {
		return nil
	}
	return err
}

// Report logs a failure and also returns it wrapped; the log call does not
// replace the return.
// ok: swallowcancel
func Report(ctx context.Context, send func(context.Context) error) error {
	if err := send(ctx); err != nil {
		slog.Error("send failed", "err", err)
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
