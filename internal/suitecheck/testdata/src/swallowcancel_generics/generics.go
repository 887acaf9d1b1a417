package swallowcancel_generics

import (
	"context"

	"kv"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func Store[V fmt](ctx context.Context, p Pair[string, V]) (Pair[string, V], error) {
	_ = kv.Put(ctx, p.Key, p.Val.String()) // want `dropped`
	return p, nil
}

type fmt interface{ String() string }

type Batch[T fmt] []T

func (b Batch[T]) Load(ctx context.Context) (T, error) {
	var zero T
	v, _ := kv.Get(ctx, "k") // want `dropped`
	_ = v
	return zero, nil
}
