// Package lease holds service code that acquires resources (contexts,
// timers, locks, rows, bodies, files, connections, spans, pooled objects)
// and has to give them back.
package lease

import (
	"context"
	"crypto/tls"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// ok: leaseleak
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ---------------------------------------------------------------------------
// Log shipping.

// Indexer stores one document in an index.
type Indexer interface {
	Index(ctx context.Context, index string, doc []byte) error
}

// ElasticHook ships log entries to a search index.
type ElasticHook struct {
	client  Indexer
	index   string
	timeout time.Duration
}

// Fire serialises the entry and indexes it within the hook's timeout.
// From: sohlich/elogrus#12
// bug: leaseleak
func (h *ElasticHook) Fire(entry map[string]any) error {
	if h.index == "" {
		return errors.New("elastic hook: no index configured")
	}
	doc, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("marshal entry: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	if err := h.client.Index(ctx, h.index, doc); err != nil {
		return fmt.Errorf("index %s: %w", h.index, err)
	}
	cancel()
	return nil
}

// FireNearMiss serialises the entry and indexes it within the hook's timeout.
// ok: leaseleak
func (h *ElasticHook) FireNearMiss(entry map[string]any) error {
	if h.index == "" {
		return errors.New("elastic hook: no index configured")
	}
	doc, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("marshal entry: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	if err := h.client.Index(ctx, h.index, doc); err != nil {
		return fmt.Errorf("index %s: %w", h.index, err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Bill import.

// ObjectStore lists and reads objects by key.
type ObjectStore interface {
	List(ctx context.Context, prefix string) ([]string, error)
	Get(ctx context.Context, key string) ([]byte, error)
}

// Bill is one imported bill file.
type Bill struct {
	Key  string
	Size int
}

// BillReader imports bill files from an object store.
type BillReader struct {
	store  ObjectStore
	budget time.Duration
}

// ok: leaseleak
func parseBill(key string, data []byte) Bill {
	return Bill{Key: key, Size: len(data)}
}

// LoadBills lists the bill objects under prefix and reads them within the reader's budget.
// From: trackit/trackit#333
// bug: leaseleak
func (r *BillReader) LoadBills(ctx context.Context, prefix string) ([]Bill, error) {
	ctx, cancel := context.WithTimeout(ctx, r.budget)
	keys, err := r.store.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	bills := make([]Bill, 0, len(keys))
	for _, k := range keys {
		data, err := r.store.Get(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("get %s: %w", k, err)
		}
		bills = append(bills, parseBill(k, data))
	}
	cancel()
	return bills, nil
}

// LoadBillsNearMiss lists the bill objects under prefix and reads them within the reader's budget.
// ok: leaseleak
func (r *BillReader) LoadBillsNearMiss(ctx context.Context, prefix string) ([]Bill, error) {
	ctx, cancel := context.WithTimeout(ctx, r.budget)
	defer cancel()
	keys, err := r.store.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	bills := make([]Bill, 0, len(keys))
	for _, k := range keys {
		data, err := r.store.Get(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("get %s: %w", k, err)
		}
		bills = append(bills, parseBill(k, data))
	}
	return bills, nil
}

// ---------------------------------------------------------------------------
// Health probing.

// Pinger is a backend that can be probed.
type Pinger interface {
	Ping(ctx context.Context) error
}

// HealthMonitor probes a fixed set of backends in order.
type HealthMonitor struct {
	order        []string
	backends     map[string]Pinger
	probeTimeout time.Duration
}

// CheckHealth pings every backend with a per-probe timeout and reports the first one that fails.
// From: notaryproject/notary#1358
// bug: leaseleak
func (m *HealthMonitor) CheckHealth(ctx context.Context) error {
	for _, name := range m.order {
		b, ok := m.backends[name]
		if !ok {
			return fmt.Errorf("backend %s not registered", name)
		}
		pctx, cancel := context.WithTimeout(ctx, m.probeTimeout)
		err := b.Ping(pctx)
		if errors.Is(err, context.DeadlineExceeded) {
			cancel()
			return fmt.Errorf("backend %s timed out after %s: %w", name, m.probeTimeout, err)
		}
		if err != nil {
			return fmt.Errorf("backend %s: %w", name, err)
		}
	}
	return nil
}

// CheckHealthNearMiss pings every backend with a per-probe timeout and reports the first one that fails.
// ok: leaseleak
func (m *HealthMonitor) CheckHealthNearMiss(ctx context.Context) error {
	for _, name := range m.order {
		b, ok := m.backends[name]
		if !ok {
			return fmt.Errorf("backend %s not registered", name)
		}
		pctx, cancel := context.WithTimeout(ctx, m.probeTimeout)
		err := b.Ping(pctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("backend %s timed out after %s: %w", name, m.probeTimeout, err)
		}
		if err != nil {
			return fmt.Errorf("backend %s: %w", name, err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Instance provisioning.

// Instance is a provisioned service instance.
type Instance struct {
	ID     string
	Status string
	Reason string
}

// InstanceAPI reads instances.
type InstanceAPI interface {
	Get(ctx context.Context, id string) (*Instance, error)
}

// InstanceClient waits on instance provisioning.
type InstanceClient struct {
	api      InstanceAPI
	interval time.Duration
}

// WaitForReady polls the instance until it reports ready or failed, or ctx ends.
// From: redhat-developer/app-services-cli#198
// bug: leaseleak
func (c *InstanceClient) WaitForReady(ctx context.Context, id string) (*Instance, error) {
	pollCtx, stop := context.WithCancel(ctx)
	for {
		inst, err := c.api.Get(pollCtx, id)
		if err != nil {
			stop()
			return nil, fmt.Errorf("get instance %s: %w", id, err)
		}
		switch inst.Status {
		case "ready":
			stop()
			return inst, nil
		case "failed":
			return nil, fmt.Errorf("instance %s failed: %s", id, inst.Reason)
		}
		if err := sleepCtx(pollCtx, c.interval); err != nil {
			stop()
			return nil, err
		}
	}
}

// WaitForReadyNearMiss polls the instance until it reports ready or failed, or ctx ends.
// ok: leaseleak
func (c *InstanceClient) WaitForReadyNearMiss(ctx context.Context, id string) (*Instance, error) {
	pollCtx, stop := context.WithCancel(ctx)
	defer stop()
	for {
		inst, err := c.api.Get(pollCtx, id)
		if err != nil {
			return nil, fmt.Errorf("get instance %s: %w", id, err)
		}
		switch inst.Status {
		case "ready":
			return inst, nil
		case "failed":
			return nil, fmt.Errorf("instance %s failed: %s", id, inst.Reason)
		}
		if err := sleepCtx(pollCtx, c.interval); err != nil {
			return nil, err
		}
	}
}

// ---------------------------------------------------------------------------
// HTTP clients.

// RetryClient retries GET requests that fail with a server error.
type RetryClient struct {
	hc      *http.Client
	retries int
	base    time.Duration
}

// ok: leaseleak
func (c *RetryClient) backoff(attempt int) time.Duration {
	return c.base * time.Duration(1<<uint(attempt-1))
}

// GetWithRetry issues GET requests until one answers below 500 or the attempts run out.
// On success the response is returned and the caller owns its body.
// From: gojek/heimdall#45
// bug: leaseleak
func (c *RetryClient) GetWithRetry(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.retries; attempt++ {
		if attempt > 0 {
			if err := sleepCtx(ctx, c.backoff(attempt)); err != nil {
				return nil, err
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		if resp.StatusCode >= http.StatusInternalServerError {
			lastErr = fmt.Errorf("server error: %s", resp.Status)
			continue
		}
		return resp, nil
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.retries+1, lastErr)
}

// GetWithRetryNearMiss issues GET requests until one answers below 500 or the attempts run out.
// On success the response is returned and the caller owns its body.
// ok: leaseleak
func (c *RetryClient) GetWithRetryNearMiss(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.retries; attempt++ {
		if attempt > 0 {
			if err := sleepCtx(ctx, c.backoff(attempt)); err != nil {
				return nil, err
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		if resp.StatusCode >= http.StatusInternalServerError {
			resp.Body.Close()
			lastErr = fmt.Errorf("server error: %s", resp.Status)
			continue
		}
		return resp, nil
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.retries+1, lastErr)
}

// Profile is a player profile.
type Profile struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ProfileClient reads profiles from the session server.
type ProfileClient struct {
	hc   *http.Client
	base string
}

// FetchProfile loads the profile for uuid from the session server.
// From: minotar/minecraft#11
// bug: leaseleak
func (c *ProfileClient) FetchProfile(ctx context.Context, uuid string) (*Profile, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/profile/"+uuid, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch profile %s: %w", uuid, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch profile %s: unexpected status %s", uuid, resp.Status)
	}
	defer resp.Body.Close()
	var p Profile
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return nil, fmt.Errorf("decode profile %s: %w", uuid, err)
	}
	return &p, nil
}

// FetchProfileNearMiss loads the profile for uuid from the session server.
// ok: leaseleak
func (c *ProfileClient) FetchProfileNearMiss(ctx context.Context, uuid string) (*Profile, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/profile/"+uuid, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch profile %s: %w", uuid, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch profile %s: unexpected status %s", uuid, resp.Status)
	}
	var p Profile
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return nil, fmt.Errorf("decode profile %s: %w", uuid, err)
	}
	return &p, nil
}

// RegistryClient talks to an image registry.
type RegistryClient struct {
	hc       *http.Client
	endpoint string
	token    string
}

// GetTags asks the registry for the tags of repo.
// From: moby/moby#2127
// bug: leaseleak
func (r *RegistryClient) GetTags(ctx context.Context, repo string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.endpoint+"/v1/repositories/"+repo+"/tags", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Token "+r.token)
	res, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get tags for %s: %w", repo, err)
	}
	if res.StatusCode == http.StatusNotFound {
		res.Body.Close()
		return nil, fmt.Errorf("repository %s not found", repo)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("registry returned %s for %s", res.Status, repo)
	}
	tags := map[string]string{}
	if err := json.NewDecoder(res.Body).Decode(&tags); err != nil {
		return nil, fmt.Errorf("decode tags for %s: %w", repo, err)
	}
	res.Body.Close()
	return tags, nil
}

// GetTagsNearMiss asks the registry for the tags of repo.
// ok: leaseleak
func (r *RegistryClient) GetTagsNearMiss(ctx context.Context, repo string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.endpoint+"/v1/repositories/"+repo+"/tags", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Token "+r.token)
	res, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get tags for %s: %w", repo, err)
	}
	if res.StatusCode == http.StatusNotFound {
		res.Body.Close()
		return nil, fmt.Errorf("repository %s not found", repo)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("registry returned %s for %s", res.Status, repo)
	}
	tags := map[string]string{}
	if err := json.NewDecoder(res.Body).Decode(&tags); err != nil {
		res.Body.Close()
		return nil, fmt.Errorf("decode tags for %s: %w", repo, err)
	}
	res.Body.Close()
	return tags, nil
}

// ---------------------------------------------------------------------------
// SQL rows.

// Session is a warehouse session.
type Session struct {
	db *sql.DB
}

// CurrentWarehouse returns the warehouse the session is using.
// From: snowflakedb/gosnowflake#129
// bug: leaseleak
func (s *Session) CurrentWarehouse(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT CURRENT_WAREHOUSE()")
	if err != nil {
		return "", fmt.Errorf("query warehouse: %w", err)
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", fmt.Errorf("query warehouse: %w", err)
		}
		return "", errors.New("no warehouse selected")
	}
	var wh sql.NullString
	if err := rows.Scan(&wh); err != nil {
		return "", fmt.Errorf("scan warehouse: %w", err)
	}
	if !wh.Valid {
		return "", errors.New("no warehouse selected")
	}
	return wh.String, nil
}

// CurrentWarehouseNearMiss returns the warehouse the session is using.
// ok: leaseleak
func (s *Session) CurrentWarehouseNearMiss(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT CURRENT_WAREHOUSE()")
	if err != nil {
		return "", fmt.Errorf("query warehouse: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", fmt.Errorf("query warehouse: %w", err)
		}
		return "", errors.New("no warehouse selected")
	}
	var wh sql.NullString
	if err := rows.Scan(&wh); err != nil {
		return "", fmt.Errorf("scan warehouse: %w", err)
	}
	if !wh.Valid {
		return "", errors.New("no warehouse selected")
	}
	return wh.String, nil
}

// SQLClient runs scraping queries.
type SQLClient struct {
	db *sql.DB
}

// QueryRows runs query and returns every row as a map from column name to value.
// From: open-telemetry/opentelemetry-collector-contrib#49463
// bug: leaseleak
func (c *SQLClient) QueryRows(ctx context.Context, query string, args ...any) ([]map[string]string, error) {
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		row := make(map[string]string, len(cols))
		for i, col := range cols {
			row[col] = vals[i].String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// QueryRowsNearMiss runs query and returns every row as a map from column name to value.
// ok: leaseleak
func (c *SQLClient) QueryRowsNearMiss(ctx context.Context, query string, args ...any) ([]map[string]string, error) {
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		row := make(map[string]string, len(cols))
		for i, col := range cols {
			row[col] = vals[i].String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// ---------------------------------------------------------------------------
// Timers and tickers.

// BinlogEvent is one replication event.
type BinlogEvent struct {
	Pos  uint32
	Data []byte
}

// BinlogStreamer receives replication events.
type BinlogStreamer struct {
	events      chan *BinlogEvent
	errs        chan error
	readTimeout time.Duration
	heartbeat   func(ctx context.Context) error
}

// NextEvent waits for the next replication event, sending a heartbeat each
// time the read timeout passes without one.
// From: go-mysql-org/go-mysql#423
// bug: leaseleak
func (s *BinlogStreamer) NextEvent(ctx context.Context) (*BinlogEvent, error) {
	for {
		select {
		case ev := <-s.events:
			return ev, nil
		case err := <-s.errs:
			return nil, fmt.Errorf("binlog stream: %w", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.readTimeout):
			if err := s.heartbeat(ctx); err != nil {
				return nil, fmt.Errorf("heartbeat: %w", err)
			}
		}
	}
}

// NextEventNearMiss waits for the next replication event, sending a heartbeat
// each time the read timeout passes without one.
// ok: leaseleak
func (s *BinlogStreamer) NextEventNearMiss(ctx context.Context) (*BinlogEvent, error) {
	idle := time.NewTimer(s.readTimeout)
	defer idle.Stop()
	for {
		select {
		case ev := <-s.events:
			return ev, nil
		case err := <-s.errs:
			return nil, fmt.Errorf("binlog stream: %w", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-idle.C:
			if err := s.heartbeat(ctx); err != nil {
				return nil, fmt.Errorf("heartbeat: %w", err)
			}
			idle.Reset(s.readTimeout)
		}
	}
}

// cronEntry is a scheduled job.
type cronEntry struct {
	name string
	at   time.Time
	run  func(now time.Time)
}

// Scheduler runs entries when they are due.
type Scheduler struct {
	entries  []cronEntry
	add      chan cronEntry
	snapshot chan chan []cronEntry
}

// ok: leaseleak
func (s *Scheduler) nextDue() int {
	best := -1
	for i, e := range s.entries {
		if best < 0 || e.at.Before(s.entries[best].at) {
			best = i
		}
	}
	return best
}

// ok: leaseleak
func (s *Scheduler) copyEntries() []cronEntry {
	out := make([]cronEntry, len(s.entries))
	copy(out, s.entries)
	return out
}

// ok: leaseleak
func (s *Scheduler) fire(i int, now time.Time) {
	e := s.entries[i]
	s.entries = append(s.entries[:i], s.entries[i+1:]...)
	e.run(now)
}

// Run sleeps until the next entry is due, waking early when entries are
// added or a snapshot is requested, until ctx ends.
// From: robfig/cron#60
// bug: leaseleak
func (s *Scheduler) Run(ctx context.Context) error {
	for {
		wait := 24 * time.Hour
		next := s.nextDue()
		if next >= 0 {
			wait = time.Until(s.entries[next].at)
		}
		timer := time.NewTimer(wait)
		select {
		case now := <-timer.C:
			if next >= 0 {
				s.fire(next, now)
			}
		case e := <-s.add:
			s.entries = append(s.entries, e)
		case reply := <-s.snapshot:
			reply <- s.copyEntries()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// RunNearMiss sleeps until the next entry is due, waking early when entries
// are added or a snapshot is requested, until ctx ends.
// ok: leaseleak
func (s *Scheduler) RunNearMiss(ctx context.Context) error {
	for {
		wait := 24 * time.Hour
		next := s.nextDue()
		if next >= 0 {
			wait = time.Until(s.entries[next].at)
		}
		timer := time.NewTimer(wait)
		select {
		case now := <-timer.C:
			if next >= 0 {
				s.fire(next, now)
			}
		case e := <-s.add:
			timer.Stop()
			s.entries = append(s.entries, e)
		case reply := <-s.snapshot:
			timer.Stop()
			reply <- s.copyEntries()
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
}

// ErrQueueClosed is returned by Depth once the queue has been shut down.
var ErrQueueClosed = errors.New("queue closed")

// DepthQueue reports how many messages are waiting.
type DepthQueue interface {
	Depth(ctx context.Context) (int, error)
}

// Gauge records a value.
type Gauge interface {
	Set(v float64)
}

// QueueWatcher samples a queue's depth.
type QueueWatcher struct {
	q        DepthQueue
	gauge    Gauge
	interval time.Duration
}

// Watch reports the queue depth every interval until ctx ends or the queue is closed.
// From: umputun/remark42#1143
// bug: leaseleak
func (w *QueueWatcher) Watch(ctx context.Context) error {
	ticker := time.NewTicker(w.interval)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
			depth, err := w.q.Depth(ctx)
			if errors.Is(err, ErrQueueClosed) {
				ticker.Stop()
				return nil
			}
			if err != nil {
				ticker.Stop()
				return fmt.Errorf("queue depth: %w", err)
			}
			w.gauge.Set(float64(depth))
		}
	}
}

// WatchNearMiss reports the queue depth every interval until ctx ends or the queue is closed.
// ok: leaseleak
func (w *QueueWatcher) WatchNearMiss(ctx context.Context) error {
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
			depth, err := w.q.Depth(ctx)
			if errors.Is(err, ErrQueueClosed) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("queue depth: %w", err)
			}
			w.gauge.Set(float64(depth))
		}
	}
}

// WindowSink receives the final total of a window.
type WindowSink interface {
	Flush(ctx context.Context, total float64) error
}

// SlidingWindow keeps a moving sum over fixed buckets.
type SlidingWindow struct {
	mu        sync.Mutex
	buckets   []float64
	pos       int
	ticker    *time.Ticker
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	sink      WindowSink
}

// NewSlidingWindow starts a window of n buckets that advances every step.
// The ticker and the shifter belong to the window and end in Close.
// ok: leaseleak
func NewSlidingWindow(n int, step time.Duration, sink WindowSink) *SlidingWindow {
	w := &SlidingWindow{
		buckets: make([]float64, n),
		ticker:  time.NewTicker(step),
		done:    make(chan struct{}),
		sink:    sink,
	}
	w.wg.Add(1)
	go w.shift()
	return w
}

// ok: leaseleak
func (w *SlidingWindow) shift() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case <-w.ticker.C:
			w.mu.Lock()
			w.pos = (w.pos + 1) % len(w.buckets)
			w.buckets[w.pos] = 0
			w.mu.Unlock()
		}
	}
}

// Add records v in the current bucket.
// ok: leaseleak
func (w *SlidingWindow) Add(v float64) {
	w.mu.Lock()
	w.buckets[w.pos] += v
	w.mu.Unlock()
}

// Close stops the shifter, waits for it and flushes the final total to the sink.
// From: prep/average#5
// bug: leaseleak
func (w *SlidingWindow) Close(ctx context.Context) error {
	w.closeOnce.Do(func() { close(w.done) })
	w.wg.Wait()
	w.mu.Lock()
	total := 0.0
	for _, b := range w.buckets {
		total += b
	}
	w.mu.Unlock()
	if err := w.sink.Flush(ctx, total); err != nil {
		return fmt.Errorf("flush window: %w", err)
	}
	return nil
}

// CloseNearMiss stops the shifter and its ticker, waits for it and flushes
// the final total to the sink.
// ok: leaseleak
func (w *SlidingWindow) CloseNearMiss(ctx context.Context) error {
	w.closeOnce.Do(func() { close(w.done) })
	w.wg.Wait()
	w.ticker.Stop()
	w.mu.Lock()
	total := 0.0
	for _, b := range w.buckets {
		total += b
	}
	w.mu.Unlock()
	if err := w.sink.Flush(ctx, total); err != nil {
		return fmt.Errorf("flush window: %w", err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Locks.

// ErrWriterClosed is returned after the writer has been closed.
var ErrWriterClosed = errors.New("writer closed")

// BatchWriter groups messages before they are written out.
type BatchWriter struct {
	mu           sync.Mutex
	closed       bool
	pending      [][]byte
	pendingBytes int
	maxBytes     int
	maxMessages  int
	wake         chan struct{}
}

// Enqueue appends data to the pending batch and wakes the flusher when the batch is full.
// From: centrifugal/centrifuge#552
// bug: leaseleak
func (w *BatchWriter) Enqueue(data []byte) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrWriterClosed
	}
	if w.pendingBytes+len(data) > w.maxBytes {
		return fmt.Errorf("batch full: %d + %d > %d bytes", w.pendingBytes, len(data), w.maxBytes)
	}
	w.pending = append(w.pending, data)
	w.pendingBytes += len(data)
	full := len(w.pending) >= w.maxMessages
	w.mu.Unlock()
	if full {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// EnqueueNearMiss appends data to the pending batch and wakes the flusher when the batch is full.
// ok: leaseleak
func (w *BatchWriter) EnqueueNearMiss(data []byte) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrWriterClosed
	}
	if w.pendingBytes+len(data) > w.maxBytes {
		pending := w.pendingBytes
		w.mu.Unlock()
		return fmt.Errorf("batch full: %d + %d > %d bytes", pending, len(data), w.maxBytes)
	}
	w.pending = append(w.pending, data)
	w.pendingBytes += len(data)
	full := len(w.pending) >= w.maxMessages
	w.mu.Unlock()
	if full {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// ImageDescriptor describes a resolved container image.
type ImageDescriptor struct {
	Ref    string
	Digest string
}

// ImageCache memoises image lookups.
type ImageCache struct {
	mu      sync.RWMutex
	entries map[string]*ImageDescriptor
	fetch   func(ctx context.Context, image string) (*ImageDescriptor, error)
}

// ImageData returns the cached descriptor for image, fetching and caching it on a miss.
// From: kyverno/kyverno#15403
// bug: leaseleak
func (c *ImageCache) ImageData(ctx context.Context, image string) (*ImageDescriptor, error) {
	c.mu.RLock()
	if d, ok := c.entries[image]; ok {
		return d, nil
	}
	c.mu.RUnlock()
	d, err := c.fetch(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", image, err)
	}
	c.mu.Lock()
	if existing, ok := c.entries[image]; ok {
		d = existing
	} else {
		c.entries[image] = d
	}
	c.mu.Unlock()
	return d, nil
}

// ImageDataNearMiss returns the cached descriptor for image, fetching and caching it on a miss.
// ok: leaseleak
func (c *ImageCache) ImageDataNearMiss(ctx context.Context, image string) (*ImageDescriptor, error) {
	c.mu.RLock()
	if d, ok := c.entries[image]; ok {
		c.mu.RUnlock()
		return d, nil
	}
	c.mu.RUnlock()
	d, err := c.fetch(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", image, err)
	}
	c.mu.Lock()
	if existing, ok := c.entries[image]; ok {
		d = existing
	} else {
		c.entries[image] = d
	}
	c.mu.Unlock()
	return d, nil
}

// ---------------------------------------------------------------------------
// Network connections.

// DirConn is an established directory connection; it owns conn.
type DirConn struct {
	conn  net.Conn
	msgID int
}

// ok: leaseleak
func newDirConn(c net.Conn) *DirConn {
	return &DirConn{conn: c, msgID: 1}
}

// Close closes the underlying connection.
// ok: leaseleak
func (d *DirConn) Close() error {
	return d.conn.Close()
}

// DialTLS connects to addr and completes the TLS handshake before returning the directory connection.
// From: go-ldap/ldap#24
// bug: leaseleak
func DialTLS(ctx context.Context, addr string, cfg *tls.Config) (*DirConn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	tc := tls.Client(raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
	}
	return newDirConn(tc), nil
}

// DialTLSNearMiss connects to addr and completes the TLS handshake before
// returning the directory connection, which then owns the socket.
// ok: leaseleak
func DialTLSNearMiss(ctx context.Context, addr string, cfg *tls.Config) (*DirConn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	tc := tls.Client(raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
	}
	return newDirConn(tc), nil
}
