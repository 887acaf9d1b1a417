// Package store is a dependency whose methods hold a context.
package store

import "context"

type Conn struct{ ctx context.Context }

// Wait carries cancellation through its receiver (a CarriesCancel fact).
func (c *Conn) Wait() error { return c.ctx.Err() }

func Put(ctx context.Context, k, v string) error { return ctx.Err() }

func Get(ctx context.Context, k string) (string, error) { return k, ctx.Err() }

func (c *Conn) Close(ctx context.Context) error { return nil }
