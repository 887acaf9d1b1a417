// Package orphan contains the asynchronous plumbing of a scanning toolkit, a
// log query frontend, a feature store, a crawler queue, a name publisher and
// a peer dial queue.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// pair carries the two return values of a wrapped call.
type pair[T1, T2 any] struct {
	a T1
	b T2
}

// ExecFuncWithTwoReturns runs fn and returns its results, or the context
// error if ctx ends first.
// From: projectdiscovery/utils#761
// bug: orphansend
func ExecFuncWithTwoReturns[T1, T2 any](ctx context.Context, fn func() (T1, T2)) (T1, T2, error) {
	ch := make(chan pair[T1, T2])
	go func() {
		a, b := fn()
		ch <- pair[T1, T2]{a, b}
	}()
	select {
	case <-ctx.Done():
		var a T1
		var b T2
		return a, b, ctx.Err()
	case r := <-ch:
		return r.a, r.b, nil
	}
}

// ExecFuncWithTwoReturnsNearMiss runs fn and returns its results, or the
// context error if ctx ends first.
// ok: orphansend
func ExecFuncWithTwoReturnsNearMiss[T1, T2 any](ctx context.Context, fn func() (T1, T2)) (T1, T2, error) {
	ch := make(chan pair[T1, T2], 1)
	go func() {
		a, b := fn()
		ch <- pair[T1, T2]{a, b}
	}()
	select {
	case <-ctx.Done():
		var a T1
		var b T2
		return a, b, ctx.Err()
	case r := <-ch:
		return r.a, r.b, nil
	}
}

// ExecFuncWithError runs fn and returns its error, or the context error if
// ctx ends first.
// ok: orphansend
func ExecFuncWithError(ctx context.Context, fn func() error) error {
	errc := make(chan error, 1)
	go func() { errc <- fn() }()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-errc:
		return err
	}
}

// Query is one shard of a split log query.
type Query struct {
	Shard int
	Expr  string
}

// Response is the result of one shard.
type Response struct {
	Shard int
	Lines []string
}

// shardResp is what a shard worker reports.
type shardResp struct {
	i   int
	res Response
	err error
}

// Downstreamer runs query shards against the queriers with bounded
// parallelism.
type Downstreamer struct {
	parallelism int
	handler     func(ctx context.Context, q Query) (Response, error)
}

// NewDownstreamer returns a downstreamer running at most parallelism shards
// at a time.
// ok: orphansend
func NewDownstreamer(parallelism int, h func(context.Context, Query) (Response, error)) *Downstreamer {
	return &Downstreamer{parallelism: parallelism, handler: h}
}

// For runs every query and returns the responses in input order.
// From: grafana/loki#20631
// bug: orphansend
func (d *Downstreamer) For(ctx context.Context, queries []Query) ([]Response, error) {
	ch := make(chan shardResp)
	sem := make(chan struct{}, d.parallelism)
	go func() {
		for i, q := range queries {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				res, err := d.handler(ctx, q)
				ch <- shardResp{i: i, res: res, err: err}
			}()
		}
	}()

	results := make([]Response, len(queries))
	for range queries {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-ch:
			if r.err != nil {
				return nil, r.err
			}
			results[r.i] = r.res
		}
	}
	return results, nil
}

// ForNearMiss runs every query and returns the responses in input order.
// ok: orphansend
func (d *Downstreamer) ForNearMiss(ctx context.Context, queries []Query) ([]Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan shardResp)
	sem := make(chan struct{}, d.parallelism)
	go func() {
		for i, q := range queries {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				defer func() { <-sem }()
				res, err := d.handler(ctx, q)
				select {
				case ch <- shardResp{i: i, res: res, err: err}:
				case <-ctx.Done():
				}
			}()
		}
	}()

	results := make([]Response, len(queries))
	for range queries {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-ch:
			if r.err != nil {
				return nil, r.err
			}
			results[r.i] = r.res
		}
	}
	return results, nil
}

// EntityRow is one entity key with the time its features are wanted for.
type EntityRow struct {
	Key      string
	UnixMill int64
}

// FeatureRow is an entity row joined with its feature values.
type FeatureRow struct {
	EntityRow
	Values map[string]string
}

// FeatureStore joins entity rows with stored feature values.
type FeatureStore struct {
	lookup func(ctx context.Context, key string, at int64) (map[string]string, error)
}

// NewFeatureStore returns a store reading values with lookup.
// ok: orphansend
func NewFeatureStore(lookup func(context.Context, string, int64) (map[string]string, error)) *FeatureStore {
	return &FeatureStore{lookup: lookup}
}

// Join streams rows through the point-in-time lookup and returns the joined
// rows.
// From: oom-ai/oomstore#1120
// bug: orphansend
func (s *FeatureStore) Join(ctx context.Context, rows []EntityRow) ([]FeatureRow, error) {
	entityRows := make(chan EntityRow)
	go func() {
		defer close(entityRows)
		for _, r := range rows {
			entityRows <- r
		}
	}()

	var out []FeatureRow
	for r := range entityRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vals, err := s.lookup(ctx, r.Key, r.UnixMill)
		if err != nil {
			return nil, fmt.Errorf("join %s: %w", r.Key, err)
		}
		out = append(out, FeatureRow{EntityRow: r, Values: vals})
	}
	return out, nil
}

// JoinNearMiss streams rows through the point-in-time lookup and returns
// the joined rows.
// ok: orphansend
func (s *FeatureStore) JoinNearMiss(ctx context.Context, rows []EntityRow) ([]FeatureRow, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	entityRows := make(chan EntityRow)
	go func() {
		defer close(entityRows)
		for _, r := range rows {
			select {
			case entityRows <- r:
			case <-ctx.Done():
				return
			}
		}
	}()

	var out []FeatureRow
	for r := range entityRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vals, err := s.lookup(ctx, r.Key, r.UnixMill)
		if err != nil {
			return nil, fmt.Errorf("join %s: %w", r.Key, err)
		}
		out = append(out, FeatureRow{EntityRow: r, Values: vals})
	}
	return out, nil
}

// Command is one fetch request in the crawler queue.
type Command struct {
	Method string
	URL    string
}

// Queue feeds commands to the crawler through an unbounded buffer.
type Queue struct {
	in     chan Command
	next   chan Command
	handle func(context.Context, Command)
	wg     sync.WaitGroup
}

// NewQueue returns a queue that hands commands to handle.
// ok: orphansend
func NewQueue(handle func(context.Context, Command)) *Queue {
	return &Queue{in: make(chan Command), next: make(chan Command), handle: handle}
}

// sliceIQ buffers commands from in without bound and hands them to next in
// order; once in is closed the pending commands are still handed over.
// From: PuerkitoBio/fetchbot#26
// bug: orphansend
func (q *Queue) sliceIQ() {
	defer q.wg.Done()
	defer close(q.next)
	var pending []Command
recv:
	for {
		if len(pending) == 0 {
			v, ok := <-q.in
			if !ok {
				break recv
			}
			pending = append(pending, v)
			continue
		}
		select {
		case v, ok := <-q.in:
			if !ok {
				break recv
			}
			pending = append(pending, v)
		case q.next <- pending[0]:
			pending = pending[1:]
		}
	}
	for _, v := range pending {
		q.next <- v
	}
}

// sliceIQNearMiss buffers commands from in without bound and hands them to
// next in order; once in is closed the pending commands are still handed
// over.
// ok: orphansend
func (q *Queue) sliceIQNearMiss(ctx context.Context) {
	defer q.wg.Done()
	defer close(q.next)
	var pending []Command
recv:
	for {
		if len(pending) == 0 {
			select {
			case v, ok := <-q.in:
				if !ok {
					break recv
				}
				pending = append(pending, v)
			case <-ctx.Done():
				return
			}
			continue
		}
		select {
		case v, ok := <-q.in:
			if !ok {
				break recv
			}
			pending = append(pending, v)
		case q.next <- pending[0]:
			pending = pending[1:]
		case <-ctx.Done():
			return
		}
	}
	for _, v := range pending {
		select {
		case q.next <- v:
		case <-ctx.Done():
			return
		}
	}
}

// process hands commands to the handler until ctx ends or next is closed.
// ok: orphansend
func (q *Queue) process(ctx context.Context) {
	defer q.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case cmd, ok := <-q.next:
			if !ok {
				return
			}
			q.handle(ctx, cmd)
		}
	}
}

// Run starts the buffer and the processor; Stop ends the input and Wait
// returns when both goroutines have exited.
// ok: orphansend
func (q *Queue) Run(ctx context.Context) {
	q.wg.Add(2)
	go q.sliceIQNearMiss(ctx)
	go q.process(ctx)
}

// Stop closes the input of the queue and waits for its goroutines.
// ok: orphansend
func (q *Queue) Stop() {
	close(q.in)
	q.wg.Wait()
}

// Publisher writes a name record and the matching public key to the
// routing system.
type Publisher struct {
	putRecord func(ctx context.Context, name string, rec []byte) error
	putKey    func(ctx context.Context, name string, key []byte) error
}

// PutRecord stores the signed record.
// ok: orphansend
func (p *Publisher) PutRecord(ctx context.Context, name string, rec []byte) error {
	return p.putRecord(ctx, name, rec)
}

// PutKey stores the public key.
// ok: orphansend
func (p *Publisher) PutKey(ctx context.Context, name string, key []byte) error {
	return p.putKey(ctx, name, key)
}

// Publish writes the record and the key concurrently and returns the first
// failure.
// From: ipfs/kubo#2788
// bug: orphansend
func (p *Publisher) Publish(ctx context.Context, name string, rec, key []byte) error {
	errc := make(chan error)
	steps := []func(context.Context, string, []byte) error{p.PutRecord, p.PutKey}
	args := [][]byte{rec, key}
	for i, step := range steps {
		go func() {
			errc <- step(ctx, name, args[i])
		}()
	}
	for range steps {
		select {
		case err := <-errc:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// PublishNearMiss writes the record and the key concurrently and returns
// the first failure.
// ok: orphansend
func (p *Publisher) PublishNearMiss(ctx context.Context, name string, rec, key []byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	steps := []func(context.Context, string, []byte) error{p.PutRecord, p.PutKey}
	errc := make(chan error, len(steps))
	args := [][]byte{rec, key}
	for i, step := range steps {
		go func() {
			errc <- step(ctx, name, args[i])
		}()
	}
	for range steps {
		select {
		case err := <-errc:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// DialQueue dials candidate peers with a pool of workers and hands the
// connected ones to a consumer.
type DialQueue struct {
	ctx    context.Context
	in     chan string
	out    chan string
	dial   func(ctx context.Context, peer string) error
	wg     sync.WaitGroup
	failed int
	mu     sync.Mutex
}

// NewDialQueue returns a queue of workers dialing with dial.
// ok: orphansend
func NewDialQueue(ctx context.Context, workers int, dial func(context.Context, string) error) *DialQueue {
	dq := &DialQueue{ctx: ctx, in: make(chan string), out: make(chan string), dial: dial}
	for i := 0; i < workers; i++ {
		dq.wg.Add(1)
		go dq.workerNearMiss()
	}
	return dq
}

// worker dials candidates from in and hands connected peers to out.
// From: libp2p/go-libp2p-kad-dht#262
// bug: orphansend
func (dq *DialQueue) worker() {
	defer dq.wg.Done()
	for {
		var p string
		select {
		case <-dq.ctx.Done():
			return
		case p = <-dq.in:
		}
		if err := dq.dial(dq.ctx, p); err != nil {
			dq.mu.Lock()
			dq.failed++
			dq.mu.Unlock()
			continue
		}
		dq.out <- p
	}
}

// workerNearMiss dials candidates from in and hands connected peers to out.
// ok: orphansend
func (dq *DialQueue) workerNearMiss() {
	defer dq.wg.Done()
	for {
		var p string
		select {
		case <-dq.ctx.Done():
			return
		case p = <-dq.in:
		}
		if err := dq.dial(dq.ctx, p); err != nil {
			dq.mu.Lock()
			dq.failed++
			dq.mu.Unlock()
			continue
		}
		select {
		case dq.out <- p:
		case <-dq.ctx.Done():
			return
		}
	}
}

// Consume returns the next connected peer, or the context error once the
// queue context or ctx has ended.
// ok: orphansend
func (dq *DialQueue) Consume(ctx context.Context) (string, error) {
	select {
	case p := <-dq.out:
		return p, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-dq.ctx.Done():
		return "", dq.ctx.Err()
	}
}

// Hedge asks every replica and returns the first answer; the result
// channel has room for every replica so later answers never wait.
// ok: orphansend
func Hedge[T any](ctx context.Context, replicas []func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, len(replicas))
	for _, r := range replicas {
		go func() {
			v, err := r(ctx)
			ch <- res{v, err}
		}()
	}
	var errs []error
	for range replicas {
		select {
		case r := <-ch:
			if r.err == nil {
				return r.v, nil
			}
			errs = append(errs, r.err)
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
	var zero T
	return zero, errors.Join(errs...)
}

// Stream emits every value of src on the returned channel until ctx ends.
// ok: orphansend
func Stream[T any](ctx context.Context, src []T) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		for _, v := range src {
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Deadline fires a timeout notice on notify once d has passed; the send
// never waits for a reader.
// ok: orphansend
func Deadline(d time.Duration, notify chan<- struct{}) (stop func() bool) {
	t := time.AfterFunc(d, func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	})
	return t.Stop
}

// Checksums computes the checksum of every blob concurrently and returns
// them in input order.
// ok: orphansend
func Checksums(ctx context.Context, blobs [][]byte, sum func(context.Context, []byte) (uint32, error)) ([]uint32, error) {
	out := make([]uint32, len(blobs))
	g, gctx := errgroup.WithContext(ctx)
	for i, b := range blobs {
		g.Go(func() error {
			s, err := sum(gctx, b)
			if err != nil {
				return err
			}
			out[i] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Compare computes two digests in parallel; the unbuffered channel is read
// exactly twice on every path.
// ok: orphansend
func Compare(ctx context.Context, a, b []byte, digest func(context.Context, []byte) (string, error)) (bool, error) {
	type res struct {
		d   string
		err error
	}
	ch := make(chan res)
	for _, x := range [][]byte{a, b} {
		go func() {
			d, err := digest(ctx, x)
			ch <- res{d, err}
		}()
	}
	r1, r2 := <-ch, <-ch
	if err := errors.Join(r1.err, r2.err); err != nil {
		return false, err
	}
	return r1.d == r2.d, nil
}
