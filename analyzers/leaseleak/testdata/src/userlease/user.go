package userlease

import (
	"context"

	"example.com/pool"
)

func query(ctx context.Context, p *pool.Pool) error {
	c, err := p.Get() // want `the lease c from \(\*pool.Pool\).Get is not released on the path through the return when ctx.Err\(\) != nil, so what it holds is never given back`
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	defer c.Put()
	return c.Query("x")
}

func borrow(n int) error {
	c := pool.Borrow() // want `the lease c from pool.Borrow is not released on the path through the return when n > 1`
	if n > 1 {
		return nil
	}
	c.Put()
	return nil
}

// ---- near misses ----

func good(p *pool.Pool) error {
	c, err := p.Get()
	if err != nil {
		return err
	}
	defer c.Put()
	return c.Query("x")
}

func handed(p *pool.Pool, out chan<- *pool.Conn) error {
	c, err := p.Get()
	if err != nil {
		return err
	}
	out <- c
	return nil
}

// Released through a helper (a fact of this package).
func viaHelper(p *pool.Pool) error {
	c, err := p.Get()
	if err != nil {
		return err
	}
	defer putBack(c)
	return c.Query("x")
}

func putBack(c *pool.Conn) { c.Put() }
