package orphan

import (
	"context"
	"fmt"
	"log"
	"sync"
	"time"
)

// Event is a change notification for a watched object.
type Event struct {
	Type   string
	Object string
}

type watcher interface {
	Watch(ctx context.Context, kind string) (<-chan Event, error)
}

// SummaryClient summarises watch events for a resource kind.
type SummaryClient struct {
	w watcher
}

// Watch forwards summarised events until the upstream watch ends.
// From: rancher/wrangler#664
// bug: orphansend
func (c *SummaryClient) Watch(ctx context.Context, kind string) (<-chan Event, error) {
	upstream, err := c.w.Watch(ctx, kind)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", kind, err)
	}
	out := make(chan Event)
	go func() {
		defer close(out)
		for ev := range upstream {
			if ev.Type == "BOOKMARK" {
				continue
			}
			out <- Event{Type: ev.Type, Object: kind + "/" + ev.Object}
		}
	}()
	return out, nil
}

// WatchNearMiss stops forwarding once the caller's ctx is done.
// ok: orphansend
func (c *SummaryClient) WatchNearMiss(ctx context.Context, kind string) (<-chan Event, error) {
	upstream, err := c.w.Watch(ctx, kind)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", kind, err)
	}
	out := make(chan Event)
	go func() {
		defer close(out)
		for ev := range upstream {
			if ev.Type == "BOOKMARK" {
				continue
			}
			select {
			case out <- Event{Type: ev.Type, Object: kind + "/" + ev.Object}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// StreamValue is one entry of a durable workflow stream.
type StreamValue struct {
	Offset int64
	Value  []byte
	Err    error
}

type streamStore interface {
	ReadPage(ctx context.Context, stream string, from int64, limit int) ([]StreamValue, bool, error)
}

// StreamReader tails workflow streams from the system database.
type StreamReader struct {
	db       streamStore
	pageSize int
	pollGap  time.Duration
}

// ReadStreamAsync returns a channel that yields stream values until the
// stream is closed.
// From: dbos-inc/dbos-transact-golang#318
// bug: orphansend
func (r *StreamReader) ReadStreamAsync(ctx context.Context, stream string) <-chan StreamValue {
	ch := make(chan StreamValue)
	go func() {
		defer close(ch)
		var offset int64
		for {
			page, closed, err := r.db.ReadPage(ctx, stream, offset, r.pageSize)
			if err != nil {
				ch <- StreamValue{Err: err}
				return
			}
			for _, v := range page {
				ch <- v
				offset = v.Offset + 1
			}
			if closed {
				return
			}
			if len(page) == 0 {
				t := time.NewTimer(r.pollGap)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
	}()
	return ch
}

// ReadStreamAsyncNearMiss routes every send through a ctx-aware helper.
// ok: orphansend
func (r *StreamReader) ReadStreamAsyncNearMiss(ctx context.Context, stream string) <-chan StreamValue {
	ch := make(chan StreamValue)
	send := func(v StreamValue) bool {
		select {
		case ch <- v:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer close(ch)
		var offset int64
		for {
			page, closed, err := r.db.ReadPage(ctx, stream, offset, r.pageSize)
			if err != nil {
				send(StreamValue{Err: err})
				return
			}
			for _, v := range page {
				if !send(v) {
					return
				}
				offset = v.Offset + 1
			}
			if closed {
				return
			}
			if len(page) == 0 {
				t := time.NewTimer(r.pollGap)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
	}()
	return ch
}

// NodeEvent reports a registry change for a compute node.
type NodeEvent struct {
	NodeID    string
	RuntimeID string
	Removed   bool
}

type registry interface {
	OnNodeEvent(cb func(NodeEvent)) (unregister func())
}

// RuntimeNodes tracks the nodes serving one runtime.
type RuntimeNodes struct {
	reg       registry
	runtimeID string
}

// WatchNodes returns events for this runtime's nodes and a function that
// ends the subscription.
// From: oasisprotocol/oasis-core#3257
// bug: orphansend
func (n *RuntimeNodes) WatchNodes() (<-chan NodeEvent, func()) {
	out := make(chan NodeEvent)
	unregister := n.reg.OnNodeEvent(func(ev NodeEvent) {
		if ev.RuntimeID != n.runtimeID {
			return
		}
		out <- ev
	})
	return out, unregister
}

// WatchNodesNearMiss lets the callback bail out once the subscriber has
// closed the subscription.
// ok: orphansend
func (n *RuntimeNodes) WatchNodesNearMiss() (<-chan NodeEvent, func()) {
	out := make(chan NodeEvent)
	closed := make(chan struct{})
	var once sync.Once
	unregister := n.reg.OnNodeEvent(func(ev NodeEvent) {
		if ev.RuntimeID != n.runtimeID {
			return
		}
		select {
		case out <- ev:
		case <-closed:
		}
	})
	return out, func() {
		once.Do(func() {
			close(closed)
			unregister()
		})
	}
}

// FileEvent describes a change found by a polling cycle.
type FileEvent struct {
	Path string
	Op   string
}

// PollWatcher detects file changes by periodically listing directories.
type PollWatcher struct {
	list     func() (map[string]time.Time, error)
	interval time.Duration
	events   chan FileEvent
	closed   chan struct{}
	files    map[string]time.Time
}

// ok: orphansend
func (w *PollWatcher) pollEvents(current map[string]time.Time, cancel <-chan struct{}) {
	for path, mod := range current {
		prev, ok := w.files[path]
		op := ""
		switch {
		case !ok:
			op = "create"
		case mod.After(prev):
			op = "write"
		}
		if op == "" {
			continue
		}
		select {
		case w.events <- FileEvent{Path: path, Op: op}:
		case <-cancel:
			return
		}
	}
}

// Start runs polling cycles until Close is called.
// From: radovskyb/watcher#103
// bug: orphansend
func (w *PollWatcher) Start() error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		current, err := w.list()
		if err != nil {
			return fmt.Errorf("poll: %w", err)
		}
		cancel := make(chan struct{})
		done := make(chan struct{})
		go func() {
			w.pollEvents(current, cancel)
			done <- struct{}{}
		}()

		select {
		case <-w.closed:
			close(cancel)
			return nil
		case <-done:
		}
		w.files = current
		select {
		case <-w.closed:
			return nil
		case <-t.C:
		}
	}
}

// StartNearMiss waits for the cycle's goroutine before returning.
// ok: orphansend
func (w *PollWatcher) StartNearMiss() error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		current, err := w.list()
		if err != nil {
			return fmt.Errorf("poll: %w", err)
		}
		cancel := make(chan struct{})
		done := make(chan struct{})
		go func() {
			w.pollEvents(current, cancel)
			done <- struct{}{}
		}()

		select {
		case <-w.closed:
			close(cancel)
			<-done
			return nil
		case <-done:
		}
		w.files = current
		select {
		case <-w.closed:
			return nil
		case <-t.C:
		}
	}
}

// HealthCheck probes one dependency.
type HealthCheck interface {
	Name() string
	Check(ctx context.Context) error
}

// HealthManager runs all registered checks.
type HealthManager struct {
	checks []HealthCheck
}

// CheckHealth runs every check concurrently and reports the first failure.
// From: hightouchio/passage#25
// bug: orphansend
func (m *HealthManager) CheckHealth(ctx context.Context) error {
	cerr := make(chan error)
	var wg sync.WaitGroup
	for _, c := range m.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Check(ctx); err != nil {
				cerr <- fmt.Errorf("%s: %w", c.Name(), err)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(cerr)
	}()

	select {
	case err, ok := <-cerr:
		if ok {
			return err
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CheckHealthNearMiss has room for every check's error.
// ok: orphansend
func (m *HealthManager) CheckHealthNearMiss(ctx context.Context) error {
	cerr := make(chan error, len(m.checks))
	var wg sync.WaitGroup
	for _, c := range m.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Check(ctx); err != nil {
				cerr <- fmt.Errorf("%s: %w", c.Name(), err)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(cerr)
	}()

	select {
	case err, ok := <-cerr:
		if ok {
			return err
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type shardClient interface {
	FetchShard(ctx context.Context, group uint32, shard int) ([]byte, error)
}

// SnapshotLoader pulls every shard of a group's snapshot.
type SnapshotLoader struct {
	client shardClient
}

// LoadGroup fetches all shards concurrently, failing fast on error.
// From: dgraph-io/dgraph#3074
// bug: orphansend
func (l *SnapshotLoader) LoadGroup(ctx context.Context, group uint32, shards int) ([][]byte, error) {
	type shardResult struct {
		idx  int
		data []byte
		err  error
	}
	resc := make(chan shardResult)
	for i := 0; i < shards; i++ {
		go func() {
			data, err := l.client.FetchShard(ctx, group, i)
			resc <- shardResult{idx: i, data: data, err: err}
		}()
	}

	out := make([][]byte, shards)
	for i := 0; i < shards; i++ {
		r := <-resc
		if r.err != nil {
			return nil, fmt.Errorf("group %d shard %d: %w", group, r.idx, r.err)
		}
		out[r.idx] = r.data
	}
	return out, nil
}

// LoadGroupNearMiss sizes the result channel to the number of senders.
// ok: orphansend
func (l *SnapshotLoader) LoadGroupNearMiss(ctx context.Context, group uint32, shards int) ([][]byte, error) {
	type shardResult struct {
		idx  int
		data []byte
		err  error
	}
	resc := make(chan shardResult, shards)
	for i := 0; i < shards; i++ {
		go func() {
			data, err := l.client.FetchShard(ctx, group, i)
			resc <- shardResult{idx: i, data: data, err: err}
		}()
	}

	out := make([][]byte, shards)
	for i := 0; i < shards; i++ {
		r := <-resc
		if r.err != nil {
			return nil, fmt.Errorf("group %d shard %d: %w", group, r.idx, r.err)
		}
		out[r.idx] = r.data
	}
	return out, nil
}

// Merge fans several event channels into one, stopping when ctx ends.
// ok: orphansend
func Merge[T any](ctx context.Context, inputs ...<-chan T) <-chan T {
	out := make(chan T)
	var wg sync.WaitGroup
	for _, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range in {
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// FirstReachable probes every address and returns the first that answers.
// ok: orphansend
func FirstReachable(ctx context.Context, addrs []string, probe func(context.Context, string) error) (string, error) {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	winner := make(chan string)
	for _, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := probe(ctx, a); err != nil {
				return
			}
			select {
			case winner <- a:
			case <-ctx.Done():
			}
		}()
	}
	select {
	case a := <-winner:
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Notify tells an optional listener about a completed job without ever
// blocking the worker.
// ok: orphansend
func Notify(listener chan<- string, jobID string) {
	select {
	case listener <- jobID:
	default:
		log.Printf("notify: listener busy, dropping completion of %s", jobID)
	}
}

// CollectAll gathers every worker's error after all of them have finished.
// ok: orphansend
func CollectAll(ctx context.Context, n int, work func(context.Context, int) error) []error {
	errc := make(chan error)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx, i); err != nil {
				errc <- err
			}
		}()
	}
	go func() {
		wg.Wait()
		close(errc)
	}()
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errs
}
