package untracked

import (
	"context"
	"sync"
)

// Entry is one journal entry.
type Entry struct {
	Author string
	Body   []byte
}

// fetchAll loads every key concurrently. On the first failure it returns
// before wg.Wait, leaving the remaining fetches running and the closer
// goroutine blocked.
// From: mtlynch/whatgotdone#676
// bug: untrackedgo
func fetchAll[T any](ctx context.Context, keys []string, fetch func(context.Context, string) (T, error)) ([]T, error) {
	type result struct {
		val T
		err error
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := fetch(ctx, k)
			results <- result{v, err}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	var out []T
	for r := range results {
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.val)
	}
	return out, nil
}

// fetchAllNearMiss keeps draining until every fetch has finished, then
// reports the first error.
// ok: untrackedgo
func fetchAllNearMiss[T any](ctx context.Context, keys []string, fetch func(context.Context, string) (T, error)) ([]T, error) {
	type result struct {
		val T
		err error
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := fetch(ctx, k)
			results <- result{v, err}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	var out []T
	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		out = append(out, r.val)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// Journal reads recent entries from a store.
type Journal struct {
	store Store
}

// load reads and decodes one entry.
// ok: untrackedgo
func (j *Journal) load(ctx context.Context, key string) (Entry, error) {
	body, found, err := j.store.Lookup(ctx, key)
	if err != nil {
		return Entry{}, err
	}
	if !found {
		return Entry{Author: key}, nil
	}
	return Entry{Author: key, Body: body}, nil
}

// Recent loads the entries for the given authors.
// ok: untrackedgo
func (j *Journal) Recent(ctx context.Context, authors []string) ([]Entry, error) {
	return fetchAllNearMiss(ctx, authors, j.load)
}
