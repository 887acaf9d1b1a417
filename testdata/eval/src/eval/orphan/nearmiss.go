package orphan

import "context"

// The sender gives up when the function returns: done is closed by defer.
//
// ok: orphansend
func (c *Crawler) WithDone(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	done := make(chan struct{})
	defer close(done)
	go func() {
		p, _ := c.l.Load(url)
		select {
		case ch <- p:
		case <-done:
		}
	}()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
