package orphan

import "context"

// The sender is a func value started with go.
//
// bug: orphansend
func (c *Crawler) Named(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	load := func() {
		p, _ := c.l.Load(url)
		ch <- p
	}
	go load()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ok: orphansend
func (c *Crawler) NamedOK(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page, 1)
	load := func() {
		p, _ := c.l.LoadCtx(ctx, url)
		ch <- p
	}
	go load()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
