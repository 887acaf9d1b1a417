package orphan

import (
	"context"
	"errors"
	"sync"
	"time"
)

// A gather loop with an overall timeout: senders started per URL block
// once the timeout fires.
//
// bug: orphansend
func (c *Crawler) GatherTimeout(urls []string, d time.Duration) ([]*Page, error) {
	ch := make(chan *Page)
	for _, u := range urls {
		go func() {
			p, _ := c.l.Load(u)
			ch <- p
		}()
	}
	deadline := time.After(d)
	var out []*Page
	for range urls {
		select {
		case p := <-ch:
			out = append(out, p)
		case <-deadline:
			return out, errors.New("gather: timeout")
		}
	}
	return out, nil
}

// The sender is a method value started with go; the early return on a
// canceled context abandons it.
//
// bug: orphansend
func (c *Crawler) First(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	go func() {
		p, err := c.l.LoadCtx(ctx, url)
		if err != nil {
			p = nil
		}
		ch <- p
	}()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Senders are drained by a range that a closer goroutine ends.
//
// ok: orphansend
func (c *Crawler) GatherAll(ctx context.Context, urls []string) []*Page {
	ch := make(chan *Page)
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _ := c.l.LoadCtx(ctx, u)
			ch <- p
		}()
	}
	go func() {
		wg.Wait()
		close(ch)
	}()
	var out []*Page
	for p := range ch {
		out = append(out, p)
	}
	return out
}

// ok: orphansend
func (c *Crawler) GatherTimeoutOK(urls []string, d time.Duration) ([]*Page, error) {
	ch := make(chan *Page, len(urls))
	for _, u := range urls {
		go func() {
			p, _ := c.l.Load(u)
			ch <- p
		}()
	}
	deadline := time.After(d)
	var out []*Page
	for range urls {
		select {
		case p := <-ch:
			out = append(out, p)
		case <-deadline:
			return out, errors.New("gather: timeout")
		}
	}
	return out, nil
}
