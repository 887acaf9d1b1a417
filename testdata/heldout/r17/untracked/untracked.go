// Package untracked contains the background machinery of a chat bot, a
// pub/sub topic, an in-memory TTL cache, a rate limiter, a file watcher, an
// IMAP IDLE manager and a few connection servers.
package untracked

import (
	"context"
	"errors"
	"log"
	"net"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Update is one message received by the bot.
type Update struct {
	ID   int
	Text string
}

// Poller feeds updates into dest until stop is closed.
type Poller interface {
	Poll(dest chan<- Update, stop <-chan struct{})
}

// LongPoller fetches updates with a blocking call and forwards them.
type LongPoller struct {
	Fetch   func(offset int) ([]Update, error)
	Timeout time.Duration
}

// Poll forwards fetched updates to dest and returns once stop is closed.
// ok: untrackedgo
func (p *LongPoller) Poll(dest chan<- Update, stop <-chan struct{}) {
	offset := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		ups, err := p.Fetch(offset)
		if err != nil {
			log.Printf("poller: %v", err)
			select {
			case <-time.After(p.Timeout):
				continue
			case <-stop:
				return
			}
		}
		for _, u := range ups {
			select {
			case dest <- u:
				offset = u.ID + 1
			case <-stop:
				return
			}
		}
	}
}

// Bot dispatches updates from its poller to a handler.
type Bot struct {
	Poller  Poller
	Updates chan Update
	handle  func(Update)
	stop    chan chan struct{}
}

// NewBot returns a bot that hands every update to handle.
// ok: untrackedgo
func NewBot(p Poller, handle func(Update)) *Bot {
	return &Bot{Poller: p, Updates: make(chan Update, 100), handle: handle, stop: make(chan chan struct{})}
}

// Start runs the poller and dispatches updates until Stop is called.
// From: tucnak/telebot#482
// bug: untrackedgo
func (b *Bot) Start() {
	stop := make(chan struct{})
	go b.Poller.Poll(b.Updates, stop)
	for {
		select {
		case upd := <-b.Updates:
			b.handle(upd)
		case confirm := <-b.stop:
			close(stop)
			close(confirm)
			return
		}
	}
}

// StartNearMiss runs the poller and dispatches updates until Stop is called.
// ok: untrackedgo
func (b *Bot) StartNearMiss() {
	stop := make(chan struct{})
	pollerDone := make(chan struct{})
	go func() {
		defer close(pollerDone)
		b.Poller.Poll(b.Updates, stop)
	}()
	for {
		select {
		case upd := <-b.Updates:
			b.handle(upd)
		case confirm := <-b.stop:
			close(stop)
			<-pollerDone
			close(confirm)
			return
		}
	}
}

// Stop asks a running Start to return and waits for its confirmation.
// ok: untrackedgo
func (b *Bot) Stop() {
	confirm := make(chan struct{})
	b.stop <- confirm
	<-confirm
}

// Batcher groups messages and sends them in bulk.
type Batcher interface {
	Add(ctx context.Context, msg []byte) error
	Shutdown()
}

// TopicDriver is the provider-specific side of a topic.
type TopicDriver interface {
	Close() error
}

// Topic publishes messages through a batcher.
type Topic struct {
	mu      sync.Mutex
	closed  bool
	batcher Batcher
	driver  TopicDriver
	cancel  context.CancelFunc
}

// NewTopic returns a topic over b and d; cancel aborts in-flight sends.
// ok: untrackedgo
func NewTopic(b Batcher, d TopicDriver, cancel context.CancelFunc) *Topic {
	return &Topic{batcher: b, driver: d, cancel: cancel}
}

// errTopicShutdown is returned by Send after Shutdown.
var errTopicShutdown = errors.New("pubsub: topic has been shut down")

// Send queues msg for publishing.
// ok: untrackedgo
func (t *Topic) Send(ctx context.Context, msg []byte) error {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return errTopicShutdown
	}
	return t.batcher.Add(ctx, msg)
}

// Shutdown flushes pending messages and releases the driver.
// From: google/go-cloud#972
// bug: untrackedgo
func (t *Topic) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return errTopicShutdown
	}
	t.closed = true
	t.mu.Unlock()

	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		t.batcher.Shutdown()
	}()
	t.cancel()
	return t.driver.Close()
}

// ShutdownNearMiss flushes pending messages and releases the driver.
// ok: untrackedgo
func (t *Topic) ShutdownNearMiss(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return errTopicShutdown
	}
	t.closed = true
	t.mu.Unlock()

	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		t.batcher.Shutdown()
	}()
	select {
	case <-flushed:
	case <-ctx.Done():
		t.cancel()
		<-flushed
	}
	t.cancel()
	return t.driver.Close()
}

// entry is one cached value with its expiry time.
type entry[V any] struct {
	value   V
	expires time.Time
}

// Cache is a TTL cache; onExpire is called for every value that leaves it.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	items    map[K]entry[V]
	ttl      time.Duration
	onExpire func(K, V)
	stop     chan struct{}
	loopDone chan struct{}
	cbs      sync.WaitGroup
}

// NewCache returns a cache whose janitor removes expired entries every
// interval.
// ok: untrackedgo
func NewCache[K comparable, V any](ttl, interval time.Duration, onExpire func(K, V)) *Cache[K, V] {
	c := &Cache[K, V]{
		items:    make(map[K]entry[V]),
		ttl:      ttl,
		onExpire: onExpire,
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	go c.janitor(interval)
	return c
}

// janitor removes expired entries until stop is closed.
// ok: untrackedgo
func (c *Cache[K, V]) janitor(interval time.Duration) {
	defer close(c.loopDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			c.mu.Lock()
			for k, e := range c.items {
				if now.After(e.expires) {
					delete(c.items, k)
					if c.onExpire != nil {
						c.onExpire(k, e.value)
					}
				}
			}
			c.mu.Unlock()
		}
	}
}

// Set stores v under k.
// ok: untrackedgo
func (c *Cache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[k] = entry[V]{value: v, expires: time.Now().Add(c.ttl)}
}

// drain empties the cache and returns what it held.
// ok: untrackedgo
func (c *Cache[K, V]) drain() map[K]entry[V] {
	c.mu.Lock()
	defer c.mu.Unlock()
	items := c.items
	c.items = make(map[K]entry[V])
	return items
}

// Close stops the janitor and reports every remaining value to onExpire.
// From: jellydator/ttlcache#28
// bug: untrackedgo
func (c *Cache[K, V]) Close() {
	close(c.stop)
	<-c.loopDone
	items := c.drain()
	if c.onExpire == nil {
		return
	}
	for k, e := range items {
		go c.onExpire(k, e.value)
	}
}

// CloseNearMiss stops the janitor and reports every remaining value to
// onExpire.
// ok: untrackedgo
func (c *Cache[K, V]) CloseNearMiss() {
	close(c.stop)
	<-c.loopDone
	items := c.drain()
	if c.onExpire == nil {
		return
	}
	for k, e := range items {
		c.cbs.Add(1)
		go func() {
			defer c.cbs.Done()
			c.onExpire(k, e.value)
		}()
	}
	c.cbs.Wait()
}

// bucket is a token bucket refilled on a fixed interval.
type bucket struct {
	tokens   chan struct{}
	interval time.Duration
}

// refill tops the bucket up on every tick until ctx ends.
// ok: untrackedgo
func (b *bucket) refill(ctx context.Context) {
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		fill:
			for {
				select {
				case b.tokens <- struct{}{}:
				default:
					break fill
				}
			}
		}
	}
}

// Take waits for a token.
// ok: untrackedgo
func (b *bucket) Take(ctx context.Context) error {
	select {
	case <-b.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Limiter allows at most max operations per interval.
type Limiter struct {
	bucket
	cancelFunc context.CancelFunc
}

// New returns a limiter allowing max operations per interval.
// From: projectdiscovery/ratelimit#19
// bug: untrackedgo
func New(max int, interval time.Duration) *Limiter {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Limiter{
		bucket:     bucket{tokens: make(chan struct{}, max), interval: interval},
		cancelFunc: cancel,
	}
	go l.refill(ctx)
	return l
}

// LimiterNearMiss allows at most max operations per interval until Stop.
type LimiterNearMiss struct {
	bucket
	cancel context.CancelFunc
	done   chan struct{}
}

// NewNearMiss returns a limiter allowing max operations per interval.
// ok: untrackedgo
func NewNearMiss(max int, interval time.Duration) *LimiterNearMiss {
	ctx, cancel := context.WithCancel(context.Background())
	l := &LimiterNearMiss{
		bucket: bucket{tokens: make(chan struct{}, max), interval: interval},
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		defer close(l.done)
		l.refill(ctx)
	}()
	return l
}

// Stop ends the refill loop and waits for it.
// ok: untrackedgo
func (l *LimiterNearMiss) Stop() {
	l.cancel()
	<-l.done
}

// EventSource reports changes below watched directories.
type EventSource interface {
	Add(dir string) error
	Events() <-chan string
	Errors() <-chan error
	Close() error
}

// FSWatcher calls onChange whenever one of the watched files changes.
type FSWatcher struct {
	src      EventSource
	paths    map[string]bool
	onChange func(path string)
	stop     chan struct{}
	done     chan struct{}
}

// handle reacts to one event.
// ok: untrackedgo
func (w *FSWatcher) handle(path string) {
	if w.paths[path] {
		w.onChange(path)
	}
}

// NewFSWatcher creates a watcher for paths on src.
// From: jaegertracing/jaeger#4514
// bug: untrackedgo
func NewFSWatcher(paths []string, src EventSource, onChange func(string)) (*FSWatcher, error) {
	w := &FSWatcher{src: src, paths: make(map[string]bool), onChange: onChange}
	for _, p := range paths {
		w.paths[p] = true
		if err := src.Add(dirOf(p)); err != nil {
			return nil, err
		}
	}
	go func() {
		for {
			select {
			case ev := <-w.src.Events():
				w.handle(ev)
			case err := <-w.src.Errors():
				log.Printf("fswatcher: %v", err)
			}
		}
	}()
	return w, nil
}

// NewFSWatcherNearMiss creates a watcher for paths on src.
// ok: untrackedgo
func NewFSWatcherNearMiss(paths []string, src EventSource, onChange func(string)) (*FSWatcher, error) {
	w := &FSWatcher{src: src, paths: make(map[string]bool), onChange: onChange,
		stop: make(chan struct{}), done: make(chan struct{})}
	for _, p := range paths {
		w.paths[p] = true
		if err := src.Add(dirOf(p)); err != nil {
			return nil, err
		}
	}
	go func() {
		defer close(w.done)
		for {
			select {
			case ev := <-w.src.Events():
				w.handle(ev)
			case err := <-w.src.Errors():
				log.Printf("fswatcher: %v", err)
			case <-w.stop:
				return
			}
		}
	}()
	return w, nil
}

// Close stops a watcher created by NewFSWatcherNearMiss and waits for its
// loop.
// ok: untrackedgo
func (w *FSWatcher) Close() error {
	close(w.stop)
	<-w.done
	return w.src.Close()
}

// dirOf returns the directory part of p.
// ok: untrackedgo
func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "."
}

// idleWatcher is one IDLE session for an account.
type idleWatcher struct {
	stop chan struct{}
	done chan struct{}
}

// IdleManager keeps one IMAP IDLE session per account.
type IdleManager struct {
	mu       sync.Mutex
	watchers map[string]*idleWatcher
	idle     func(account string, stop <-chan struct{}) error
}

// NewIdleManager returns a manager that runs idle for each watched account.
// ok: untrackedgo
func NewIdleManager(idle func(string, <-chan struct{}) error) *IdleManager {
	return &IdleManager{watchers: make(map[string]*idleWatcher), idle: idle}
}

// run repeats IDLE for account until w is stopped.
// ok: untrackedgo
func (m *IdleManager) run(account string, w *idleWatcher) {
	for {
		if err := m.idle(account, w.stop); err != nil {
			log.Printf("idle %s: %v", account, err)
		}
		select {
		case <-w.stop:
			return
		case <-time.After(time.Second):
		}
	}
}

// Watch (re)starts the IDLE session for account, replacing an existing one.
// From: floatpane/matcha#805
// bug: untrackedgo
func (m *IdleManager) Watch(account string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.watchers[account]; ok {
		close(old.stop)
	}
	w := &idleWatcher{stop: make(chan struct{})}
	m.watchers[account] = w
	go m.run(account, w)
}

// WatchNearMiss (re)starts the IDLE session for account, replacing an
// existing one.
// ok: untrackedgo
func (m *IdleManager) WatchNearMiss(account string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.watchers[account]; ok {
		close(old.stop)
		<-old.done
	}
	w := &idleWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	m.watchers[account] = w
	go func() {
		defer close(w.done)
		m.run(account, w)
	}()
}

// StopAll ends every session started by WatchNearMiss and waits for them.
// ok: untrackedgo
func (m *IdleManager) StopAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for account, w := range m.watchers {
		close(w.stop)
		<-w.done
		delete(m.watchers, account)
	}
}

// WarmAll loads every key into the cache concurrently and waits for all of
// them.
// ok: untrackedgo
func WarmAll[K comparable, V any](ctx context.Context, c *Cache[K, V], keys []K, load func(context.Context, K) (V, error)) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, k := range keys {
		g.Go(func() error {
			v, err := load(gctx, k)
			if err != nil {
				return err
			}
			c.Set(k, v)
			return nil
		})
	}
	return g.Wait()
}

// Server serves connections, one goroutine each, and waits for them on
// Shutdown.
type Server struct {
	handle func(ctx context.Context, c net.Conn)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewServer returns a server whose handlers observe a context that
// Shutdown cancels.
// ok: untrackedgo
func NewServer(handle func(context.Context, net.Conn)) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{handle: handle, ctx: ctx, cancel: cancel}
}

// Serve accepts connections from l until it is closed, then waits for the
// handlers it started.
// ok: untrackedgo
func (s *Server) Serve(l net.Listener) error {
	defer s.wg.Wait()
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		s.wg.Go(func() {
			defer conn.Close()
			s.handle(s.ctx, conn)
		})
	}
}

// Shutdown cancels the connection handlers and waits for them.
// ok: untrackedgo
func (s *Server) Shutdown() {
	s.cancel()
	s.wg.Wait()
}

// Resolve looks name up while the caller prepares the request; the lookup
// goroutine is joined by a receive on every path.
// ok: untrackedgo
func Resolve(ctx context.Context, name string, lookup func(context.Context, string) ([]string, error), prepare func() error) ([]string, error) {
	type result struct {
		addrs []string
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		addrs, err := lookup(ctx, name)
		ch <- result{addrs, err}
	}()
	perr := prepare()
	r := <-ch
	if perr != nil {
		return nil, perr
	}
	return r.addrs, r.err
}
