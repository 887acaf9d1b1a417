// Package swallow holds the lookup, batch and storage helpers of a content
// routing node: peer queries, task groups, a crawler, a shard and a scanner.
package swallow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
)

// Record is one value returned by a peer for a key.
type Record struct {
	Peer  string
	Value []byte
	Seq   uint64
}

// Querier asks a single peer for the record stored under a key.
type Querier interface {
	GetRecord(ctx context.Context, peer, key string) (Record, error)
}

// RecordCache keeps the best record seen for each key.
type RecordCache struct {
	mu   sync.Mutex
	recs map[string]Record
}

// NewRecordCache returns an empty cache.
// ok: swallowcancel
func NewRecordCache() *RecordCache {
	return &RecordCache{recs: make(map[string]Record)}
}

// Put stores rec for key unless a newer record is already cached.
// ok: swallowcancel
func (c *RecordCache) Put(key string, rec Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.recs[key]; !ok || old.Seq <= rec.Seq {
		c.recs[key] = rec
	}
}

// DHT resolves keys by asking the closest peers in parallel.
type DHT struct {
	q      Querier
	peers  func(key string) []string
	quorum int
	cache  *RecordCache
}

// NewDHT wires a resolver over q; closest returns the peers to ask for a key.
// ok: swallowcancel
func NewDHT(q Querier, closest func(string) []string, quorum int) *DHT {
	return &DHT{q: q, peers: closest, quorum: quorum, cache: NewRecordCache()}
}

// best picks the record with the highest sequence number.
// ok: swallowcancel
func best(recs []Record) Record {
	var b Record
	for i, r := range recs {
		if i == 0 || r.Seq > b.Seq {
			b = r
		}
	}
	return b
}

type answer struct {
	rec Record
	err error
}

// GetValue asks the closest peers for key until a quorum of them has
// answered and returns the newest record, which is also cached for later
// lookups.
// From: libp2p/go-libp2p-kad-dht#173
// bug: swallowcancel
func (d *DHT) GetValue(ctx context.Context, key string) ([]byte, error) {
	peers := d.peers(key)
	if len(peers) == 0 {
		return nil, errors.New("dht: no peers for key")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()

	answers := make(chan answer, len(peers))
	for _, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, err := d.q.GetRecord(qctx, p, key)
			answers <- answer{rec: rec, err: err}
		}()
	}

	var recs []Record
collect:
	for range peers {
		select {
		case a := <-answers:
			if a.err != nil {
				continue
			}
			recs = append(recs, a.rec)
			if len(recs) >= d.quorum {
				break collect
			}
		case <-ctx.Done():
			break collect
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("dht: none of %d peers answered for %q", len(peers), key)
	}
	b := best(recs)
	d.cache.Put(key, b)
	return b.Value, nil
}

// GetValueNearMiss asks the closest peers for key until a quorum of them has
// answered and returns the newest record, which is also cached for later
// lookups.
// ok: swallowcancel
func (d *DHT) GetValueNearMiss(ctx context.Context, key string) ([]byte, error) {
	peers := d.peers(key)
	if len(peers) == 0 {
		return nil, errors.New("dht: no peers for key")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()

	answers := make(chan answer, len(peers))
	for _, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, err := d.q.GetRecord(qctx, p, key)
			answers <- answer{rec: rec, err: err}
		}()
	}

	var recs []Record
collect:
	for range peers {
		select {
		case a := <-answers:
			if a.err != nil {
				continue
			}
			recs = append(recs, a.rec)
			if len(recs) >= d.quorum {
				break collect
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("dht: none of %d peers answered for %q", len(peers), key)
	}
	b := best(recs)
	d.cache.Put(key, b)
	return b.Value, nil
}

// TaskGroup runs tasks that produce values of type T under a shared context
// and collects their results in submission order.
type TaskGroup[T any] struct {
	ctx     context.Context
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []T
	err     error
}

// NewTaskGroup returns a group whose tasks observe ctx.
// ok: swallowcancel
func NewTaskGroup[T any](ctx context.Context) *TaskGroup[T] {
	return &TaskGroup[T]{ctx: ctx}
}

// setErr records the first error reported by a task.
// ok: swallowcancel
func (g *TaskGroup[T]) setErr(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
}

// reserve appends an empty slot for the next task and returns its index.
// ok: swallowcancel
func (g *TaskGroup[T]) reserve() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	var zero T
	g.results = append(g.results, zero)
	return len(g.results) - 1
}

// Submit schedules task; its value is stored at the slot reserved for it.
// Tasks submitted after the group context has ended are not started.
// From: alitto/pond#40
// bug: swallowcancel
func (g *TaskGroup[T]) Submit(task func(context.Context) (T, error)) {
	idx := g.reserve()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := g.ctx.Err(); err != nil {
			return
		}
		v, err := task(g.ctx)
		if err != nil {
			g.setErr(err)
			return
		}
		g.mu.Lock()
		g.results[idx] = v
		g.mu.Unlock()
	}()
}

// SubmitNearMiss schedules task; its value is stored at the slot reserved
// for it. Tasks submitted after the group context has ended are not started.
// ok: swallowcancel
func (g *TaskGroup[T]) SubmitNearMiss(task func(context.Context) (T, error)) {
	idx := g.reserve()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := g.ctx.Err(); err != nil {
			g.setErr(err)
			return
		}
		v, err := task(g.ctx)
		if err != nil {
			g.setErr(err)
			return
		}
		g.mu.Lock()
		g.results[idx] = v
		g.mu.Unlock()
	}()
}

// Wait blocks until every submitted task has finished and returns the
// collected values together with the first recorded error.
// ok: swallowcancel
func (g *TaskGroup[T]) Wait() ([]T, error) {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.results, g.err
}

// ParallelMap calls fn for every item with at most limit calls in flight and
// returns the results in input order.
// From: rorkai/App-Store-Connect-CLI#1753
// bug: swallowcancel
func ParallelMap[In, Out any](ctx context.Context, items []In, limit int, fn func(context.Context, In) (Out, error)) ([]Out, error) {
	if limit < 1 {
		limit = 1
	}
	out := make([]Out, len(items))
	sem := make(chan struct{}, limit)
	taskCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-taskCtx.Done():
				return
			}
			v, err := fn(taskCtx, it)
			if err != nil {
				once.Do(func() {
					firstErr = err
					cancel()
				})
				return
			}
			out[i] = v
		}()
	}
	wg.Wait()
	return out, firstErr
}

// ParallelMapNearMiss calls fn for every item with at most limit calls in
// flight and returns the results in input order.
// ok: swallowcancel
func ParallelMapNearMiss[In, Out any](ctx context.Context, items []In, limit int, fn func(context.Context, In) (Out, error)) ([]Out, error) {
	if limit < 1 {
		limit = 1
	}
	out := make([]Out, len(items))
	sem := make(chan struct{}, limit)
	taskCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-taskCtx.Done():
				return
			}
			v, err := fn(taskCtx, it)
			if err != nil {
				once.Do(func() {
					firstErr = err
					cancel()
				})
				return
			}
			out[i] = v
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Decision is the metadata of one published court decision.
type Decision struct {
	ID    string `json:"id"`
	Court string `json:"court"`
	Date  string `json:"date"`
	Type  string `json:"type"`
}

// DossierClient fetches decision metadata from a court records API.
type DossierClient struct {
	base   string
	client *http.Client
	logf   func(format string, args ...any)
}

// NewDossierClient returns a client for the API rooted at base.
// ok: swallowcancel
func NewDossierClient(base string, client *http.Client) *DossierClient {
	return &DossierClient{base: base, client: client, logf: log.Printf}
}

// decodeDecision reads one decision document and closes the body.
// ok: swallowcancel
func decodeDecision(resp *http.Response) (d Decision, err error) {
	defer func() {
		if cerr := resp.Body.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Errorf("status %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&d)
	return d, err
}

// CollectMatches fetches every candidate decision and keeps those published
// by the requested court. Candidates that cannot be fetched are skipped.
// From: mvanhorn/printing-press-library#1061
// bug: swallowcancel
func (c *DossierClient) CollectMatches(ctx context.Context, court string, ids []string) ([]Decision, error) {
	var matches []Decision
	for _, id := range ids {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/decisions/"+url.PathEscape(id), nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.client.Do(req)
		if err != nil {
			continue
		}
		d, err := decodeDecision(resp)
		if err != nil {
			c.logf("dossier: decode %s: %v", id, err)
			continue
		}
		if d.Court == court {
			matches = append(matches, d)
		}
	}
	return matches, nil
}

// CollectMatchesNearMiss fetches every candidate decision and keeps those
// published by the requested court. Candidates that cannot be fetched are
// skipped.
// ok: swallowcancel
func (c *DossierClient) CollectMatchesNearMiss(ctx context.Context, court string, ids []string) ([]Decision, error) {
	var matches []Decision
	for _, id := range ids {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/decisions/"+url.PathEscape(id), nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.client.Do(req)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return matches, cerr
			}
			continue
		}
		d, err := decodeDecision(resp)
		if err != nil {
			c.logf("dossier: decode %s: %v", id, err)
			continue
		}
		if d.Court == court {
			matches = append(matches, d)
		}
	}
	return matches, nil
}

// Location addresses a slot in a shard file.
type Location struct {
	Shard  uint8
	Slot   uint32
	Length uint16
}

// WriteResult is delivered once per Write call.
type WriteResult struct {
	Loc Location
	Err error
}

// Shard stores fixed-size blobs in the slots of a single file.
type Shard struct {
	index     uint8
	free      chan uint32
	file      io.WriterAt
	slotSize  int
	abandoned atomic.Int64
}

// NewShard returns a shard with slots free slots of slotSize bytes each.
// ok: swallowcancel
func NewShard(index uint8, file io.WriterAt, slots, slotSize int) *Shard {
	sh := &Shard{index: index, free: make(chan uint32, slots), file: file, slotSize: slotSize}
	for i := 0; i < slots; i++ {
		sh.free <- uint32(i)
	}
	return sh
}

// writeAt stores buf in slot.
// ok: swallowcancel
func (sh *Shard) writeAt(slot uint32, buf []byte) (Location, error) {
	if len(buf) > sh.slotSize {
		return Location{}, fmt.Errorf("shard %d: blob of %d bytes exceeds slot size", sh.index, len(buf))
	}
	if _, err := sh.file.WriteAt(buf, int64(slot)*int64(sh.slotSize)); err != nil {
		return Location{}, err
	}
	return Location{Shard: sh.index, Slot: slot, Length: uint16(len(buf))}, nil
}

// Write waits for a free slot and stores buf in it; the outcome is delivered
// on the returned channel.
// From: ethersphere/bee#2948
// bug: swallowcancel
func (sh *Shard) Write(ctx context.Context, buf []byte) <-chan WriteResult {
	res := make(chan WriteResult, 1)
	go func() {
		defer close(res)
		select {
		case slot := <-sh.free:
			loc, err := sh.writeAt(slot, buf)
			if err != nil {
				sh.free <- slot
			}
			res <- WriteResult{Loc: loc, Err: err}
		case <-ctx.Done():
			sh.abandoned.Add(1)
		}
	}()
	return res
}

// WriteNearMiss waits for a free slot and stores buf in it; the outcome is
// delivered on the returned channel.
// ok: swallowcancel
func (sh *Shard) WriteNearMiss(ctx context.Context, buf []byte) <-chan WriteResult {
	res := make(chan WriteResult, 1)
	go func() {
		defer close(res)
		select {
		case slot := <-sh.free:
			loc, err := sh.writeAt(slot, buf)
			if err != nil {
				sh.free <- slot
			}
			res <- WriteResult{Loc: loc, Err: err}
		case <-ctx.Done():
			sh.abandoned.Add(1)
			res <- WriteResult{Err: ctx.Err()}
		}
	}()
	return res
}

// Item is one decoded row of a table scan.
type Item map[string]string

// Page is one response of the paged scan API.
type Page struct {
	Items   []Item
	LastKey string
}

// PageFetcher reads the page that starts after key.
type PageFetcher func(ctx context.Context, after string) (Page, error)

// ScanIter walks a table page by page.
type ScanIter struct {
	fetch   PageFetcher
	buf     []Item
	lastKey string
	started bool
	err     error
}

// NewScanIter returns an iterator that reads pages with fetch.
// ok: swallowcancel
func NewScanIter(fetch PageFetcher) *ScanIter {
	return &ScanIter{fetch: fetch}
}

// Next stores the next item in out and reports whether there was one; Err
// reports why iteration stopped.
// From: guregu/dynamo#166
// bug: swallowcancel
func (it *ScanIter) Next(ctx context.Context, out *Item) bool {
	if it.err != nil {
		return false
	}
	for len(it.buf) == 0 {
		if it.started && it.lastKey == "" {
			return false
		}
		if ctx.Err() != nil {
			return false
		}
		page, err := it.fetch(ctx, it.lastKey)
		if err != nil {
			it.err = err
			return false
		}
		it.started = true
		it.buf, it.lastKey = page.Items, page.LastKey
	}
	*out = it.buf[0]
	it.buf = it.buf[1:]
	return true
}

// NextNearMiss stores the next item in out and reports whether there was
// one; Err reports why iteration stopped.
// ok: swallowcancel
func (it *ScanIter) NextNearMiss(ctx context.Context, out *Item) bool {
	if it.err != nil {
		return false
	}
	if err := ctx.Err(); err != nil {
		it.err = err
		return false
	}
	for len(it.buf) == 0 {
		if it.started && it.lastKey == "" {
			return false
		}
		page, err := it.fetch(ctx, it.lastKey)
		if err != nil {
			it.err = err
			return false
		}
		it.started = true
		it.buf, it.lastKey = page.Items, page.LastKey
	}
	*out = it.buf[0]
	it.buf = it.buf[1:]
	return true
}

// Err returns the error that ended the iteration, if any.
// ok: swallowcancel
func (it *ScanIter) Err() error {
	return it.err
}

// All yields every remaining item; when the scan stops early the final pair
// carries the reason.
// ok: swallowcancel
func (it *ScanIter) All(ctx context.Context) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		var item Item
		for it.NextNearMiss(ctx, &item) {
			if !yield(item, nil) {
				return
			}
		}
		if err := it.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// ctxErr returns the cause recorded for ctx once it has ended.
// ok: swallowcancel
func ctxErr(ctx context.Context) error {
	return context.Cause(ctx)
}

// WaitReady blocks until ready is closed or ctx ends.
// ok: swallowcancel
func WaitReady(ctx context.Context, ready <-chan struct{}) error {
	for {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
		}
	}
}

// ExportSnapshot writes every cached record to path as JSON lines. The file
// is closed by a deferred closure that folds the close error into the result.
// ok: swallowcancel
func ExportSnapshot(ctx context.Context, c *RecordCache, path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, f.Close())
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	enc := json.NewEncoder(f)
	for _, r := range c.recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
