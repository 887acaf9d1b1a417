// Package orphan holds orphansend cases: result sends that block forever
// after the receiver gave up, shaped after goroutine-leak reports in RPC
// clients and DNS resolvers (an unbuffered result channel plus a select on
// ctx.Done() or time.After), and scatter-gather loops that return at the
// first error.
package orphan

import (
	"context"
	"errors"
	"time"
)

type Page struct {
	URL  string
	Body []byte
}

type Loader interface {
	Load(url string) (*Page, error)
	LoadCtx(ctx context.Context, url string) (*Page, error)
}

type Crawler struct {
	l Loader
}

// bug: orphansend
func (c *Crawler) Fetch(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	go func() {
		p, _ := c.l.Load(url)
		ch <- p
	}()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bug: orphansend
func (c *Crawler) FetchTimeout(url string, d time.Duration) (*Page, error) {
	errc := make(chan error)
	var page *Page
	go func() {
		p, err := c.l.Load(url)
		page = p
		errc <- err
	}()
	select {
	case err := <-errc:
		return page, err
	case <-time.After(d):
		return nil, errors.New("fetch timed out")
	}
}

// bug: orphansend
func (c *Crawler) FetchAll(ctx context.Context, urls []string) ([]*Page, error) {
	type res struct {
		p   *Page
		err error
	}
	ch := make(chan res)
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			ch <- res{p, err}
		}()
	}
	var out []*Page
	for range urls {
		r := <-ch
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.p)
	}
	return out, nil
}

// bug: orphansend
func (c *Crawler) FetchBuffered(ctx context.Context, urls []string) (*Page, error) {
	ch := make(chan *Page, 1)
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			if err == nil {
				ch <- p
			}
		}()
	}
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bug: orphansend
func (c *Crawler) Head(ctx context.Context, url string) (int, error) {
	done := make(chan int)
	go func() {
		p, err := c.l.Load(url)
		if err != nil {
			done <- -1
			return
		}
		done <- len(p.Body)
	}()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case n := <-done:
		return n, nil
	}
}

// bug: orphansend
func (c *Crawler) Prepare(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	go func() {
		p, _ := c.l.Load(url)
		ch <- p
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return <-ch, nil
}

// bug: orphansend
func (c *Crawler) Race(ctx context.Context, a, b string) (*Page, error) {
	ch := make(chan *Page)
	go func() { p, _ := c.l.Load(a); ch <- p }()
	go func() { p, _ := c.l.Load(b); ch <- p }()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bug: orphansend
func (c *Crawler) Size(ctx context.Context, url string, limit time.Duration) (int, error) {
	sizes := make(chan int)
	go func() {
		p, err := c.l.LoadCtx(ctx, url)
		if err != nil {
			sizes <- 0
			return
		}
		sizes <- len(p.Body)
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case n := <-sizes:
		return n, nil
	case <-timer.C:
		return 0, errors.New("size: timeout")
	}
}

// bug: orphansend
func (c *Crawler) Titles(ctx context.Context, urls []string) ([]string, error) {
	ch := make(chan string)
	errc := make(chan error, len(urls))
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			if err != nil {
				errc <- err
				return
			}
			ch <- string(p.Body[:min(10, len(p.Body))])
		}()
	}
	var out []string
	for range urls {
		select {
		case t := <-ch:
			out = append(out, t)
		case err := <-errc:
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// bug: orphansend
func (c *Crawler) Resolve(ctx context.Context, url string) (string, error) {
	out := make(chan string)
	go func() {
		p, err := c.l.Load(url)
		if err != nil {
			out <- ""
			return
		}
		out <- p.URL
	}()
	select {
	case <-ctx.Done():
		return "", context.Cause(ctx)
	case u := <-out:
		return u, nil
	}
}

// bug: orphansend
func (c *Crawler) Check(url string) error {
	errc := make(chan error)
	go func() {
		_, err := c.l.Load(url)
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-time.After(3 * time.Second):
		return nil
	}
}

// bug: orphansend
func (c *Crawler) Mirror(ctx context.Context, urls []string, limit int) ([]*Page, error) {
	pages := make(chan *Page)
	for _, u := range urls[:limit] {
		go func() {
			p, _ := c.l.LoadCtx(ctx, u)
			pages <- p
		}()
	}
	var out []*Page
	for i := 0; i < limit; i++ {
		p := <-pages
		if p == nil {
			return out, errors.New("mirror: missing page")
		}
		out = append(out, p)
	}
	return out, nil
}

// bug: orphansend
func (c *Crawler) Probe(ctx context.Context, url string) bool {
	ok := make(chan bool)
	go func() {
		_, err := c.l.Load(url)
		ok <- err == nil
	}()
	select {
	case v := <-ok:
		return v
	case <-ctx.Done():
		return false
	}
}

// bug: orphansend
func (c *Crawler) Lookup(ctx context.Context, url string) (*Page, error) {
	type result struct {
		p   *Page
		err error
	}
	rc := make(chan result)
	go func() {
		p, err := c.l.Load(url)
		rc <- result{p, err}
	}()
	for {
		select {
		case r := <-rc:
			return r.p, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// ---- near-misses ----

// ok: orphansend
func (c *Crawler) FetchOK(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page, 1)
	go func() {
		p, _ := c.l.Load(url)
		ch <- p
	}()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ok: orphansend
func (c *Crawler) FetchSelectSend(ctx context.Context, url string) (*Page, error) {
	ch := make(chan *Page)
	go func() {
		p, _ := c.l.LoadCtx(ctx, url)
		select {
		case ch <- p:
		case <-ctx.Done():
		}
	}()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ok: orphansend
func (c *Crawler) FetchAllBuffered(ctx context.Context, urls []string) ([]*Page, error) {
	type res struct {
		p   *Page
		err error
	}
	ch := make(chan res, len(urls))
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			ch <- res{p, err}
		}()
	}
	var out []*Page
	for range urls {
		r := <-ch
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.p)
	}
	return out, nil
}

// ok: orphansend
func (c *Crawler) FetchAllDrain(ctx context.Context, urls []string) ([]*Page, error) {
	type res struct {
		p   *Page
		err error
	}
	ch := make(chan res)
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			ch <- res{p, err}
		}()
	}
	var out []*Page
	var firstErr error
	for range urls {
		r := <-ch
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
		out = append(out, r.p)
	}
	return out, firstErr
}

// ok: orphansend
func (c *Crawler) Stream(ctx context.Context, urls []string) <-chan *Page {
	ch := make(chan *Page)
	go func() {
		defer close(ch)
		for _, u := range urls {
			p, err := c.l.LoadCtx(ctx, u)
			if err != nil {
				return
			}
			select {
			case ch <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// ok: orphansend
func (c *Crawler) Blocking(url string) (*Page, error) {
	ch := make(chan *Page)
	errc := make(chan error, 1)
	go func() {
		p, err := c.l.Load(url)
		if err != nil {
			errc <- err
			close(ch)
			return
		}
		ch <- p
	}()
	p, ok := <-ch
	if !ok {
		return nil, <-errc
	}
	return p, nil
}

// ok: orphansend
func (c *Crawler) RaceBuffered(ctx context.Context, a, b string) (*Page, error) {
	ch := make(chan *Page, 2)
	go func() { p, _ := c.l.Load(a); ch <- p }()
	go func() { p, _ := c.l.Load(b); ch <- p }()
	select {
	case p := <-ch:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ok: orphansend
func (c *Crawler) CheckNonBlocking(url string) error {
	errc := make(chan error)
	go func() {
		_, err := c.l.Load(url)
		select {
		case errc <- err:
		default:
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-time.After(3 * time.Second):
		return nil
	}
}

// ok: orphansend
func (c *Crawler) Pipeline(ctx context.Context, urls <-chan string, out chan<- *Page) error {
	for u := range urls {
		p, err := c.l.LoadCtx(ctx, u)
		if err != nil {
			return err
		}
		select {
		case out <- p:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// ok: orphansend
func (c *Crawler) Sequential(ctx context.Context, url string) (*Page, error) {
	done := make(chan struct{})
	var p *Page
	var err error
	go func() {
		defer close(done)
		p, err = c.l.LoadCtx(ctx, url)
	}()
	<-done
	return p, err
}

// ok: orphansend
func (c *Crawler) Size2(ctx context.Context, url string) (int, error) {
	sizes := make(chan int, 1)
	go func() {
		p, err := c.l.LoadCtx(ctx, url)
		if err != nil {
			sizes <- 0
			return
		}
		sizes <- len(p.Body)
	}()
	select {
	case n := <-sizes:
		return n, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// ok: orphansend
func (c *Crawler) Titles2(ctx context.Context, urls []string) ([]string, error) {
	ch := make(chan string, len(urls))
	errc := make(chan error, len(urls))
	for _, u := range urls {
		go func() {
			p, err := c.l.LoadCtx(ctx, u)
			if err != nil {
				errc <- err
				return
			}
			ch <- p.URL
		}()
	}
	var out []string
	for range urls {
		select {
		case t := <-ch:
			out = append(out, t)
		case err := <-errc:
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// ok: orphansend
func (c *Crawler) Probe2(ctx context.Context, url string) bool {
	ok := make(chan bool, 1)
	go func() {
		_, err := c.l.Load(url)
		ok <- err == nil
	}()
	select {
	case v := <-ok:
		return v
	case <-ctx.Done():
		return false
	}
}
