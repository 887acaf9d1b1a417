// Package kv is a context-bound dependency for the fix fixtures.
package kv

import "context"

func Put(ctx context.Context, k, v string) error { return ctx.Err() }

func Get(ctx context.Context, k string) (string, error) { return k, ctx.Err() }
