package untracked

import "sync"

// Crawler visits URLs from a job queue with a fixed number of workers.
type Crawler struct {
	workers int
	jobs    chan string
	quit    chan struct{}
	once    sync.Once
	visit   func(url string)
}

// NewCrawler returns a crawler with n workers calling visit.
// ok: untrackedgo
func NewCrawler(n int, visit func(string)) *Crawler {
	return &Crawler{workers: n, jobs: make(chan string), quit: make(chan struct{}), visit: visit}
}

// worker visits jobs until quit is closed.
// ok: untrackedgo
func (c *Crawler) worker() {
	for {
		select {
		case <-c.quit:
			return
		case url := <-c.jobs:
			c.visit(url)
		}
	}
}

// Start launches the workers. They exit once quit is closed, but nothing
// counts them, so Stop returns while workers are still inside visit, and a
// crawler restarted right after briefly runs twice as many.
// From: nictuku/dht#50
// bug: untrackedgo
func (c *Crawler) Start() {
	for range c.workers {
		go c.worker()
	}
}

// Stop closes quit.
// ok: untrackedgo
func (c *Crawler) Stop() {
	c.once.Do(func() { close(c.quit) })
}

// Prober is a Crawler whose workers are joined by Stop.
type Prober struct {
	Crawler
	wg sync.WaitGroup
}

// Start is the near-miss of Crawler.Start: every worker is started with
// p.wg.Go, and Stop waits for the group after closing quit.
// From: nictuku/dht#50
// ok: untrackedgo
func (p *Prober) Start() {
	for range p.workers {
		p.wg.Go(p.worker)
	}
}

// Stop closes quit and waits for the workers.
// ok: untrackedgo
func (p *Prober) Stop() {
	p.Crawler.Stop()
	p.wg.Wait()
}
