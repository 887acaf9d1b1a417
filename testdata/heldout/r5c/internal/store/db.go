// Package store is a small in-memory key/value store shared by the examples.
// Every operation honours its context: when the context ends first, the
// operation returns ctx.Err() (context.Canceled or context.DeadlineExceeded).
package store

import (
	"context"
	"errors"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("store: not found")

// Record is one versioned value.
type Record struct {
	Key     string
	Value   []byte
	Version int64
}

// Event is one item of a Watch stream. The last event of a stream that was
// cut short carries the context's error in Err.
type Event struct {
	Rec Record
	Err error
}

// DB is an in-memory store whose operations take a simulated latency.
type DB struct {
	mu      sync.RWMutex
	data    map[string]Record
	latency time.Duration
}

// New returns an empty DB whose operations take latency each.
// ok: swallowcancel
func New(latency time.Duration) *DB {
	return &DB{data: make(map[string]Record), latency: latency}
}

// wait blocks for the simulated latency, or until ctx is done.
// ok: swallowcancel
func (db *DB) wait(ctx context.Context) error {
	if db.latency <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(db.latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Get returns the record stored under key.
// ok: swallowcancel
func (db *DB) Get(ctx context.Context, key string) (Record, error) {
	if err := db.wait(ctx); err != nil {
		return Record{}, err
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	rec, ok := db.data[key]
	if !ok {
		return Record{}, ErrNotFound
	}
	return rec, nil
}

// Put stores value under key and returns the new version.
// ok: swallowcancel
func (db *DB) Put(ctx context.Context, key string, value []byte) (int64, error) {
	if err := db.wait(ctx); err != nil {
		return 0, err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	rec := db.data[key]
	rec.Key = key
	rec.Value = append([]byte(nil), value...)
	rec.Version++
	db.data[key] = rec
	return rec.Version, nil
}

// Delete removes key.
// ok: swallowcancel
func (db *DB) Delete(ctx context.Context, key string) error {
	if err := db.wait(ctx); err != nil {
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	delete(db.data, key)
	return nil
}

// snapshot returns the records under prefix in key order.
// ok: swallowcancel
func (db *DB) snapshot(prefix string) []Record {
	db.mu.RLock()
	defer db.mu.RUnlock()
	var out []Record
	for k, rec := range db.data {
		if strings.HasPrefix(k, prefix) {
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Scan yields the records under prefix in key order. If ctx ends part way,
// it yields (Record{}, ctx.Err()) once and stops.
// ok: swallowcancel
func (db *DB) Scan(ctx context.Context, prefix string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for _, rec := range db.snapshot(prefix) {
			if err := db.wait(ctx); err != nil {
				yield(Record{}, err)
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Watch replays the records under prefix as events. When ctx ends part way,
// the final event carries ctx.Err() and the stream stops.
// ok: swallowcancel
func (db *DB) Watch(ctx context.Context, prefix string) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for rec, err := range db.Scan(ctx, prefix) {
			if !yield(Event{Rec: rec, Err: err}) || err != nil {
				return
			}
		}
	}
}
