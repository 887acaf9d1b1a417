package untracked

import (
	"context"
	"log"
	"sync"
	"sync/atomic"
	"time"
)

type tickConn interface {
	ReadMessage() ([]byte, error)
	WriteMessage(b []byte) error
	Close() error
}

// Ticker streams market ticks over a websocket-like connection.
type Ticker struct {
	dial         func() (tickConn, error)
	mu           sync.Mutex
	conn         tickConn
	lastPing     atomic.Int64
	pingInterval time.Duration
	onTick       func([]byte)
	stop         chan struct{}
	wg           sync.WaitGroup
}

// ok: untrackedgo
func (t *Ticker) readLoop(conn tickConn) {
	for {
		msg, err := conn.ReadMessage()
		if err != nil {
			log.Printf("ticker: read: %v", err)
			return
		}
		t.lastPing.Store(time.Now().UnixNano())
		t.onTick(msg)
	}
}

// Connect dials the feed and starts a read loop plus a staleness watcher.
// From: zerodha/gokiteconnect#43
// bug: untrackedgo
func (t *Ticker) Connect() error {
	conn, err := t.dial()
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.conn = conn
	t.mu.Unlock()
	t.lastPing.Store(time.Now().UnixNano())

	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.readLoop(conn)
	}()

	go func() {
		tk := time.NewTicker(t.pingInterval)
		defer tk.Stop()
		for range tk.C {
			last := time.Unix(0, t.lastPing.Load())
			if time.Since(last) > 2*t.pingInterval {
				log.Printf("ticker: no data since %s, reconnecting", last.Format(time.RFC3339))
				if err := t.reconnect(); err != nil {
					log.Printf("ticker: reconnect: %v", err)
				}
			}
		}
	}()
	return nil
}

// ok: untrackedgo
func (t *Ticker) reconnect() error {
	t.mu.Lock()
	old := t.conn
	t.mu.Unlock()
	if old != nil {
		if err := old.Close(); err != nil {
			log.Printf("ticker: close stale conn: %v", err)
		}
	}
	conn, err := t.dial()
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.conn = conn
	t.mu.Unlock()
	t.lastPing.Store(time.Now().UnixNano())
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.readLoop(conn)
	}()
	return nil
}

// Close closes the connection and waits for the readers.
// ok: untrackedgo
func (t *Ticker) Close() error {
	t.mu.Lock()
	conn := t.conn
	t.mu.Unlock()
	var err error
	if conn != nil {
		err = conn.Close()
	}
	if t.stop != nil {
		close(t.stop)
	}
	t.wg.Wait()
	return err
}

// ConnectNearMiss ties the watcher to the stop channel Close closes.
// ok: untrackedgo
func (t *Ticker) ConnectNearMiss() error {
	conn, err := t.dial()
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.conn = conn
	t.stop = make(chan struct{})
	stop := t.stop
	t.mu.Unlock()
	t.lastPing.Store(time.Now().UnixNano())

	t.wg.Add(2)
	go func() {
		defer t.wg.Done()
		t.readLoop(conn)
	}()
	go func() {
		defer t.wg.Done()
		tk := time.NewTicker(t.pingInterval)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			last := time.Unix(0, t.lastPing.Load())
			if time.Since(last) > 2*t.pingInterval {
				log.Printf("ticker: no data since %s, reconnecting", last.Format(time.RFC3339))
				if err := t.reconnect(); err != nil {
					log.Printf("ticker: reconnect: %v", err)
				}
			}
		}
	}()
	return nil
}

// Heartbeat publishes a liveness beacon at a fixed interval.
type Heartbeat struct {
	interval time.Duration
	publish  func(seq uint64) error
	ticker   *time.Ticker
	done     chan struct{}
	exited   chan struct{}
}

// Start begins publishing beacons.
// From: mmcgrana/gobyexample#206
// bug: untrackedgo
func (h *Heartbeat) Start() {
	h.ticker = time.NewTicker(h.interval)
	go func() {
		var seq uint64
		for range h.ticker.C {
			seq++
			if err := h.publish(seq); err != nil {
				log.Printf("heartbeat %d: %v", seq, err)
			}
		}
		log.Printf("heartbeat: stopped after %d beacons", seq)
	}()
}

// Stop halts the beacon ticker.
// ok: untrackedgo
func (h *Heartbeat) Stop() {
	if h.ticker != nil {
		h.ticker.Stop()
	}
	if h.done != nil {
		close(h.done)
		<-h.exited
	}
}

// StartNearMiss exits the loop on a done channel, since stopping a ticker
// never closes its channel.
// ok: untrackedgo
func (h *Heartbeat) StartNearMiss() {
	h.ticker = time.NewTicker(h.interval)
	h.done = make(chan struct{})
	h.exited = make(chan struct{})
	go func() {
		defer close(h.exited)
		var seq uint64
		for {
			select {
			case <-h.done:
				log.Printf("heartbeat: stopped after %d beacons", seq)
				return
			case <-h.ticker.C:
			}
			seq++
			if err := h.publish(seq); err != nil {
				log.Printf("heartbeat %d: %v", seq, err)
			}
		}
	}()
}

// Msg is a message delivered by a queue subscription.
type Msg struct {
	Subject string
	Data    []byte
	Ack     func() error
}

type queueConn interface {
	QueueSubscribe(subject, group string, cb func(*Msg)) (func() error, error)
}

// Subscriber dispatches queue messages to handlers.
type Subscriber struct {
	nc       queueConn
	inflight chan struct{}
	wg       sync.WaitGroup
	unsubs   []func() error
}

// Subscribe registers cb for subject, acking before the handler runs.
// From: starlinerapp/starliner#348
// bug: untrackedgo
func (s *Subscriber) Subscribe(subject, durable string, cb func([]byte)) error {
	group := durable + "-workers"
	unsub, err := s.nc.QueueSubscribe(subject, group, func(m *Msg) {
		go func() {
			if err := m.Ack(); err != nil {
				log.Printf("subscriber %s: ack: %v", m.Subject, err)
				return
			}
			cb(m.Data)
		}()
	})
	if err != nil {
		return err
	}
	s.unsubs = append(s.unsubs, unsub)
	return nil
}

// SubscribeNearMiss bounds in-flight handlers and lets Drain wait for them.
// ok: untrackedgo
func (s *Subscriber) SubscribeNearMiss(subject, durable string, cb func([]byte)) error {
	group := durable + "-workers"
	unsub, err := s.nc.QueueSubscribe(subject, group, func(m *Msg) {
		s.inflight <- struct{}{}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.inflight }()
			if err := m.Ack(); err != nil {
				log.Printf("subscriber %s: ack: %v", m.Subject, err)
				return
			}
			cb(m.Data)
		}()
	})
	if err != nil {
		return err
	}
	s.unsubs = append(s.unsubs, unsub)
	return nil
}

// Drain unsubscribes everything and waits for running handlers.
// ok: untrackedgo
func (s *Subscriber) Drain() {
	for _, unsub := range s.unsubs {
		if err := unsub(); err != nil {
			log.Printf("subscriber: unsubscribe: %v", err)
		}
	}
	s.wg.Wait()
}

type envelope struct {
	To      string
	Payload []byte
}

// Outbox forwards queued envelopes to peers.
type Outbox struct {
	queue   chan envelope
	slots   chan struct{}
	forward func(ctx context.Context, e envelope) error
}

// Run forwards queued envelopes until ctx ends.
// From: ethersphere/swarm#1802
// bug: untrackedgo
func (o *Outbox) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-o.queue:
			go func() {
				if err := o.forward(ctx, e); err != nil {
					log.Printf("outbox: forward to %s: %v", e.To, err)
					select {
					case o.queue <- e:
					default:
						log.Printf("outbox: queue full, dropping message to %s", e.To)
					}
				}
			}()
		}
	}
}

// RunNearMiss uses a fixed number of forwarding slots and drains them on exit.
// ok: untrackedgo
func (o *Outbox) RunNearMiss(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-o.queue:
			select {
			case o.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-o.slots }()
				if err := o.forward(ctx, e); err != nil {
					log.Printf("outbox: forward to %s: %v", e.To, err)
					select {
					case o.queue <- e:
					default:
						log.Printf("outbox: queue full, dropping message to %s", e.To)
					}
				}
			}()
		}
	}
}

// PulledMessage is one message from a pull batch.
type PulledMessage struct {
	ID   string
	Data []byte
}

type puller interface {
	Pull(ctx context.Context, max int) ([]PulledMessage, error)
	Ack(ctx context.Context, ids ...string) error
}

// Subscription receives pulled messages and hands them to a callback.
type Subscription struct {
	client  puller
	maxPull int
}

// Receive calls f for each message until ctx is done.
// From: googleapis/google-cloud-go#1318
// bug: untrackedgo
func (s *Subscription) Receive(ctx context.Context, f func(context.Context, PulledMessage) error) error {
	for {
		msgs, err := s.client.Pull(ctx, s.maxPull)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		for _, m := range msgs {
			go func() {
				if err := f(ctx, m); err != nil {
					log.Printf("subscription: message %s: %v", m.ID, err)
					return
				}
				if err := s.client.Ack(ctx, m.ID); err != nil {
					log.Printf("subscription: ack %s: %v", m.ID, err)
				}
			}()
		}
	}
}

// ReceiveNearMiss caps outstanding callbacks and waits for them on return.
// ok: untrackedgo
func (s *Subscription) ReceiveNearMiss(ctx context.Context, f func(context.Context, PulledMessage) error) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	outstanding := make(chan struct{}, s.maxPull)
	for {
		msgs, err := s.client.Pull(ctx, s.maxPull)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		for _, m := range msgs {
			select {
			case outstanding <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-outstanding }()
				if err := f(ctx, m); err != nil {
					log.Printf("subscription: message %s: %v", m.ID, err)
					return
				}
				if err := s.client.Ack(ctx, m.ID); err != nil {
					log.Printf("subscription: ack %s: %v", m.ID, err)
				}
			}()
		}
	}
}

var processStatsOnce sync.Once

// StartProcessStats logs runtime statistics for the life of the process.
// ok: untrackedgo
func StartProcessStats(every time.Duration, sample func() (goroutines int, heapMB float64)) {
	processStatsOnce.Do(func() {
		// Deliberately never stopped: this sampler is started once from main
		// and is meant to run until the process exits; sync.Once keeps it to
		// a single goroutine no matter how often it is called.
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for range t.C {
				g, heap := sample()
				log.Printf("stats: goroutines=%d heap=%.1fMB", g, heap)
			}
		}()
	})
}
