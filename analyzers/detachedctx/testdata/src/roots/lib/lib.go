// Package lib has context-less helpers that make their own root context.
package lib

import (
	"context"
	"net/http"
	"time"
)

func load(ctx context.Context, key string) (string, error) { return key, ctx.Err() }

// Warm runs its work under a root of its own.
func Warm(key string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := load(ctx, key)
	return err
}

// WarmBounded bounds its work by a deadline of its own: a lifetime it
// chose, not a context it lost.
func WarmBounded(key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := load(ctx, key)
	return err
}

// Refresh reaches Warm.
func Refresh() error { return Warm("all") }

// NewRequest only makes a value under the root: the caller may give it a
// context before any work runs.
func NewRequest(url string) (*http.Request, error) {
	return http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
}

// Describe uses a root for values only (no work runs under it).
func Describe() string {
	return context.Background().Value("k").(string)
}

// Later hands the root to a goroutine: its own lifetime.
func Later(key string) {
	go func() { load(context.Background(), key) }()
}
