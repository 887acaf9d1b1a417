// Generic code: the fixes must keep type parameters and instantiations.
package foldedtimeout_generics

import (
	"context"
	"fmt"
)

type Loader[K comparable, V any] interface {
	Load(ctx context.Context, k K) (V, error)
}

func LoadAll[K comparable, V any](ctx context.Context, l Loader[K, V], keys []K) (map[K]V, error) {
	out := make(map[K]V, len(keys))
	for _, k := range keys {
		v, err := l.Load(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("load %v: %v", k, err) // want `formats err with %v`
		}
		out[k] = v
	}
	return out, nil
}

type Cache[V any] struct {
	l Loader[string, V]
}

func (c *Cache[V]) Get(ctx context.Context, k string) (V, error) {
	v, err := c.l.Load(ctx, k)
	if err != nil {
		var zero V
		return zero, fmt.Errorf("cache %s: %s", k, err.Error()) // want `formats err with %s`
	}
	return v, nil
}

// Correct: %w keeps the cancellation visible.
func First[T any](ctx context.Context, l Loader[int, T]) (T, error) {
	v, err := l.Load(ctx, 0)
	if err != nil {
		return v, fmt.Errorf("first: %w", err)
	}
	return v, nil
}
