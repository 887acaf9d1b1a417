// Package store is a dependency whose methods hold a context.
package store

import (
	"context"
	"errors"
)

type Conn struct{ ctx context.Context }

// Wait carries cancellation through its receiver (a CarriesCancel fact).
func (c *Conn) Wait() error { return c.ctx.Err() }

func Put(ctx context.Context, k, v string) error { return ctx.Err() }

func Get(ctx context.Context, k string) (string, error) { return k, ctx.Err() }

func (c *Conn) Close(ctx context.Context) error { return nil }

type tenantKey struct{}

// Lookup uses its context for a value only (a NoCancel fact).
func Lookup(ctx context.Context, k string) (string, error) {
	t, _ := ctx.Value(tenantKey{}).(string)
	if k == "" {
		return "", errNoKey
	}
	return t + "/" + k, nil
}

var errNoKey = errors.New("no key")

// Validate checks k without looking at its context.
func Validate(_ context.Context, k string) error {
	if k == "" {
		return errors.New("empty key")
	}
	return check(k)
}

// check is a hook: its errors are not fresh.
var check = func(k string) error { return nil }
