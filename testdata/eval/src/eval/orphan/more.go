package orphan

import (
	"context"
	"sync"
)

// loadInto sends the page on ch.
//
// ok: orphansend
func (c *Crawler) loadInto(url string, ch chan<- *Page) {
	p, _ := c.l.Load(url)
	ch <- p
}

// The sender is a method that receives the channel; the caller stops
// receiving on cancellation.
//
// bug: orphansend
func (c *Crawler) Via(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	go c.loadInto(url, ch)
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A generator: the caller ranges over the returned channel, which a closer
// goroutine closes once every sender is done.
//
// ok: orphansend
func (c *Crawler) All(ctx context.Context, urls []string) <-chan *Page {
	out := make(chan *Page)
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.l.LoadCtx(ctx, u)
			if err != nil {
				return
			}
			select {
			case out <- p:
			case <-ctx.Done():
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}
