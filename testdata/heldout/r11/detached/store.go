package detached

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"time"
)

// Bundle is a policy bundle definition.
type Bundle struct {
	Name     string
	Revision string
	Sources  []string
}

// Database stores bundle and source configuration.
type Database struct {
	db *sql.DB
}

// ListBundles returns every bundle with its sources.
// From: open-policy-agent/opa-control-plane#405
// bug: detachedctx
func (d *Database) ListBundles(ctx context.Context) ([]Bundle, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	rows, err := tx.Query(`SELECT b.name, b.revision, s.name
		FROM bundles b LEFT JOIN bundle_sources s ON s.bundle = b.name
		ORDER BY b.name`)
	if err != nil {
		return nil, fmt.Errorf("list bundles: %w", err)
	}
	defer rows.Close()

	var out []Bundle
	for rows.Next() {
		var name, rev string
		var src sql.NullString
		if err := rows.Scan(&name, &rev, &src); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, Bundle{Name: name, Revision: rev})
		}
		if src.Valid {
			out[len(out)-1].Sources = append(out[len(out)-1].Sources, src.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, tx.Commit()
}

// ListBundlesNearMiss runs the query with the caller's context.
// ok: detachedctx
func (d *Database) ListBundlesNearMiss(ctx context.Context) ([]Bundle, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	rows, err := tx.QueryContext(ctx, `SELECT b.name, b.revision, s.name
		FROM bundles b LEFT JOIN bundle_sources s ON s.bundle = b.name
		ORDER BY b.name`)
	if err != nil {
		return nil, fmt.Errorf("list bundles: %w", err)
	}
	defer rows.Close()

	var out []Bundle
	for rows.Next() {
		var name, rev string
		var src sql.NullString
		if err := rows.Scan(&name, &rev, &src); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, Bundle{Name: name, Revision: rev})
		}
		if src.Valid {
			out[len(out)-1].Sources = append(out[len(out)-1].Sources, src.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, tx.Commit()
}

// Sample is one point of a time series.
type Sample struct {
	T int64
	V float64
}

type pgxRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type pgxPool interface {
	Query(ctx context.Context, sql string, args ...any) (pgxRows, error)
}

// SamplesQuerier reads samples for PromQL evaluation.
type SamplesQuerier struct {
	pool pgxPool
}

// Select returns the samples of one series between mint and maxt.
// From: timescale/promscale#1205
// bug: detachedctx
func (q *SamplesQuerier) Select(ctx context.Context, seriesID int64, mint, maxt int64) ([]Sample, error) {
	if mint > maxt {
		return nil, fmt.Errorf("invalid range [%d, %d]", mint, maxt)
	}
	rows, err := q.pool.Query(context.Background(),
		`SELECT time, value FROM prom_data.samples WHERE series_id = $1 AND time BETWEEN $2 AND $3 ORDER BY time`,
		seriesID, mint, maxt)
	if err != nil {
		return nil, fmt.Errorf("select series %d: %w", seriesID, err)
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		var s Sample
		if err := rows.Scan(&s.T, &s.V); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SelectNearMiss passes the query context to the pool.
// ok: detachedctx
func (q *SamplesQuerier) SelectNearMiss(ctx context.Context, seriesID int64, mint, maxt int64) ([]Sample, error) {
	if mint > maxt {
		return nil, fmt.Errorf("invalid range [%d, %d]", mint, maxt)
	}
	rows, err := q.pool.Query(ctx,
		`SELECT time, value FROM prom_data.samples WHERE series_id = $1 AND time BETWEEN $2 AND $3 ORDER BY time`,
		seriesID, mint, maxt)
	if err != nil {
		return nil, fmt.Errorf("select series %d: %w", seriesID, err)
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		var s Sample
		if err := rows.Scan(&s.T, &s.V); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

type docCollection interface {
	Find(ctx context.Context, filter map[string]any) ([]Entity, error)
	DeleteMany(ctx context.Context, filter map[string]any) (int64, error)
}

// EntityStore persists entities; it keeps the context it was built with.
type EntityStore struct {
	ctx   context.Context
	coll  docCollection
	limit int
}

// WithContext returns a copy of the store bound to ctx.
// ok: detachedctx
func (s *EntityStore) WithContext(ctx context.Context) *EntityStore {
	c := *s
	c.ctx = ctx
	return &c
}

// DeleteLabel removes every entity of a type carrying label.
// From: block/etre#90
// bug: detachedctx
func (s *EntityStore) DeleteLabel(ctx context.Context, entityType, label string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	filter := map[string]any{"_type": entityType, label: map[string]any{"$exists": true}}
	matched, err := s.coll.Find(s.ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("find %s with %s: %w", entityType, label, err)
	}
	if len(matched) > s.limit {
		return 0, fmt.Errorf("refusing to delete %d entities (limit %d)", len(matched), s.limit)
	}
	n, err := s.coll.DeleteMany(s.ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("delete %s with %s: %w", entityType, label, err)
	}
	return n, nil
}

// DeleteLabelNearMiss uses the ctx it was given for both calls.
// ok: detachedctx
func (s *EntityStore) DeleteLabelNearMiss(ctx context.Context, entityType, label string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	filter := map[string]any{"_type": entityType, label: map[string]any{"$exists": true}}
	matched, err := s.coll.Find(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("find %s with %s: %w", entityType, label, err)
	}
	if len(matched) > s.limit {
		return 0, fmt.Errorf("refusing to delete %d entities (limit %d)", len(matched), s.limit)
	}
	n, err := s.coll.DeleteMany(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("delete %s with %s: %w", entityType, label, err)
	}
	return n, nil
}

// Invocation is a build invocation recorded by the result store.
type Invocation struct {
	Name   string
	Status string
	Start  time.Time
}

type resultStoreRPC interface {
	SearchInvocations(ctx context.Context, query string, pageToken string) ([]Invocation, string, error)
}

// ResultStoreClient wraps the result store API.
type ResultStoreClient struct {
	ctx context.Context
	rpc resultStoreRPC
}

// SearchAll pages through every invocation matching query.
// From: GoogleCloudPlatform/testgrid#112
// bug: detachedctx
func (c *ResultStoreClient) SearchAll(ctx context.Context, query string, max int) ([]Invocation, error) {
	var out []Invocation
	token := ""
	for {
		page, next, err := c.rpc.SearchInvocations(c.ctx, query, token)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", query, err)
		}
		out = append(out, page...)
		if next == "" || len(out) >= max {
			break
		}
		token = next
	}
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// SearchAllNearMiss pages with the caller's context.
// ok: detachedctx
func (c *ResultStoreClient) SearchAllNearMiss(ctx context.Context, query string, max int) ([]Invocation, error) {
	var out []Invocation
	token := ""
	for {
		page, next, err := c.rpc.SearchInvocations(ctx, query, token)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", query, err)
		}
		out = append(out, page...)
		if next == "" || len(out) >= max {
			break
		}
		token = next
	}
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// Duty is a validator duty for one slot.
type Duty struct {
	Slot      uint64
	Validator int
	Kind      string
}

type beaconNode interface {
	AttesterDuties(ctx context.Context, epoch uint64, validators []int) ([]Duty, error)
	ProposerDuties(ctx context.Context, epoch uint64) ([]Duty, error)
}

// Scheduler resolves the duties of our validators for each epoch.
type Scheduler struct {
	node       beaconNode
	validators []int
	rpcTimeout time.Duration
}

// ResolveDuties fetches attester and proposer duties for epoch.
// From: ObolNetwork/charon#62
// bug: detachedctx
func (s *Scheduler) ResolveDuties(ctx context.Context, epoch uint64) ([]Duty, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(context.Background(), s.rpcTimeout)
	defer cancel()
	att, err := s.node.AttesterDuties(rctx, epoch, s.validators)
	if err != nil {
		return nil, fmt.Errorf("attester duties for epoch %d: %w", epoch, err)
	}
	prop, err := s.node.ProposerDuties(rctx, epoch)
	if err != nil {
		return nil, fmt.Errorf("proposer duties for epoch %d: %w", epoch, err)
	}
	ours := make(map[int]bool, len(s.validators))
	for _, v := range s.validators {
		ours[v] = true
	}
	for _, d := range prop {
		if ours[d.Validator] {
			att = append(att, d)
		}
	}
	return att, nil
}

// ResolveDutiesNearMiss derives the RPC timeout from ctx.
// ok: detachedctx
func (s *Scheduler) ResolveDutiesNearMiss(ctx context.Context, epoch uint64) ([]Duty, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.rpcTimeout)
	defer cancel()
	att, err := s.node.AttesterDuties(rctx, epoch, s.validators)
	if err != nil {
		return nil, fmt.Errorf("attester duties for epoch %d: %w", epoch, err)
	}
	prop, err := s.node.ProposerDuties(rctx, epoch)
	if err != nil {
		return nil, fmt.Errorf("proposer duties for epoch %d: %w", epoch, err)
	}
	ours := make(map[int]bool, len(s.validators))
	for _, v := range s.validators {
		ours[v] = true
	}
	for _, d := range prop {
		if ours[d.Validator] {
			att = append(att, d)
		}
	}
	return att, nil
}

// FeedItem is an article fetched from a feed.
type FeedItem struct {
	FeedID string
	URL    string
	Title  string
}

type feedStore interface {
	ItemExists(ctx context.Context, url string) (bool, error)
	AddItem(ctx context.Context, it FeedItem) error
}

// FeedRefresher stores newly fetched items.
type FeedRefresher struct {
	store feedStore
}

// StoreNew saves the items that are not yet known and returns how many.
// From: fortytw2/hydrocarbon#91
// bug: detachedctx
func (f *FeedRefresher) StoreNew(ctx context.Context, items []FeedItem) (int, error) {
	added := 0
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return added, err
		}
		exists, err := f.store.ItemExists(context.TODO(), it.URL)
		if err != nil {
			return added, fmt.Errorf("check %s: %w", it.URL, err)
		}
		if exists {
			continue
		}
		if err := f.store.AddItem(context.TODO(), it); err != nil {
			return added, fmt.Errorf("add %s: %w", it.URL, err)
		}
		added++
	}
	return added, nil
}

// StoreNewNearMiss hands ctx to the store.
// ok: detachedctx
func (f *FeedRefresher) StoreNewNearMiss(ctx context.Context, items []FeedItem) (int, error) {
	added := 0
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return added, err
		}
		exists, err := f.store.ItemExists(ctx, it.URL)
		if err != nil {
			return added, fmt.Errorf("check %s: %w", it.URL, err)
		}
		if exists {
			continue
		}
		if err := f.store.AddItem(ctx, it); err != nil {
			return added, fmt.Errorf("add %s: %w", it.URL, err)
		}
		added++
	}
	return added, nil
}

// Compactor runs periodic compaction for the lifetime of the service.
type Compactor struct {
	lifetime context.Context
	db       *sql.DB
}

// CompactOnce is triggered by the service's own timer, which has no caller
// context, so it runs under the service lifetime context.
// ok: detachedctx
func (c *Compactor) CompactOnce() error {
	ctx, cancel := context.WithTimeout(c.lifetime, time.Minute)
	defer cancel()
	res, err := c.db.ExecContext(ctx, `DELETE FROM events WHERE created_at < now() - interval '30 days'`)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("compact: rows affected: %w", err)
	}
	log.Printf("compact: removed %d events", n)
	return nil
}

// CloseWithFlush flushes pending writes during shutdown; the service's
// contexts are already cancelled at this point, so it uses a fresh bounded
// context on purpose.
// ok: detachedctx
func (c *Compactor) CloseWithFlush(flush func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ferr := flush(ctx)
	return errors.Join(ferr, c.db.Close())
}
