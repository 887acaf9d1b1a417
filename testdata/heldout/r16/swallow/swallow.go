// Package swallow holds synchronisation, scanning and query-execution code
// from a configuration-sync tool, a storage server and a reporting CLI.
package swallow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"log"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Event is one create, update or delete that the syncer must apply.
type Event struct {
	Op   string
	Kind string
	ID   string
}

// Syncer applies a list of events against an admin API.
type Syncer struct {
	events  []Event
	apply   func(ctx context.Context, e Event) error
	workers int
}

// NewSyncer returns a Syncer that applies events with the given number of
// workers.
//
// ok: swallowcancel
func NewSyncer(events []Event, workers int, apply func(context.Context, Event) error) *Syncer {
	if workers < 1 {
		workers = 1
	}
	return &Syncer{events: events, apply: apply, workers: workers}
}

// startWorkers starts the worker pool; each worker applies events from queue
// until it is closed and reports failures on errCh.
//
// ok: swallowcancel
func (s *Syncer) startWorkers(ctx context.Context, wg *sync.WaitGroup, queue <-chan Event, errCh chan<- error) {
	for i := 0; i < s.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range queue {
				if err := s.apply(ctx, e); err != nil {
					errCh <- fmt.Errorf("while processing event {%s} %s %s failed: %w", e.Op, e.Kind, e.ID, err)
				}
			}
		}()
	}
}

// Run feeds every queued event to a pool of workers and returns the errors
// reported while processing them.
//
// From: Kong/deck#528
// bug: swallowcancel
func (s *Syncer) Run(ctx context.Context) []error {
	queue := make(chan Event)
	errCh := make(chan error, len(s.events))

	var wg sync.WaitGroup
	s.startWorkers(ctx, &wg, queue, errCh)

feed:
	for _, e := range s.events {
		select {
		case queue <- e:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	close(errCh)

	var errs []error
	for err := range errCh {
		errs = append(errs, err)
	}
	return errs
}

// RunNearMiss feeds every queued event to a pool of workers and returns the
// errors reported while processing them, including the context's error when
// the run stopped before every event was dispatched.
//
// ok: swallowcancel
func (s *Syncer) RunNearMiss(ctx context.Context) []error {
	queue := make(chan Event)
	errCh := make(chan error, len(s.events)+1)

	var wg sync.WaitGroup
	s.startWorkers(ctx, &wg, queue, errCh)

feed:
	for _, e := range s.events {
		select {
		case queue <- e:
		case <-ctx.Done():
			errCh <- fmt.Errorf("sync context ended, some entities were not synced: %w", ctx.Err())
			break feed
		}
	}
	close(queue)
	wg.Wait()
	close(errCh)

	var errs []error
	for err := range errCh {
		errs = append(errs, err)
	}
	return errs
}

// Solve runs the syncer and folds its error list into one error.
//
// ok: swallowcancel
func Solve(ctx context.Context, s *Syncer) error {
	return errors.Join(s.RunNearMiss(ctx)...)
}

// Item is one stored object found while walking the storage root.
type Item struct {
	Path    string
	Address string
}

// FileStore serves objects stored as files below a root directory.
type FileStore struct {
	root   string
	suffix string
}

// address derives the object address from a path below the root.
//
// ok: swallowcancel
func (s *FileStore) address(path string) string {
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		rel = path
	}
	return strings.TrimSuffix(filepath.ToSlash(rel), s.suffix)
}

// Enumerate walks the storage root in a separate goroutine, streaming the
// matching entries to the caller, which collects them into a list.
//
// From: rstudio/platform-lib#301
// bug: swallowcancel
func (s *FileStore) Enumerate(ctx context.Context) ([]Item, error) {
	items := make(chan Item)
	walkErr := make(chan error, 1)

	go func() {
		defer close(items)
		walkErr <- filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, s.suffix) {
				return nil
			}
			select {
			case items <- Item{Path: path, Address: s.address(path)}:
				return nil
			case <-ctx.Done():
				return filepath.SkipAll
			}
		})
	}()

	var out []Item
	for it := range items {
		out = append(out, it)
	}
	if err := <-walkErr; err != nil {
		return nil, fmt.Errorf("enumerate %s: %w", s.root, err)
	}
	return out, nil
}

// EnumerateNearMiss walks the storage root in a separate goroutine,
// streaming the matching entries to the caller. The walk callback checks the
// context for every entry and ends the walk with the context's error.
//
// ok: swallowcancel
func (s *FileStore) EnumerateNearMiss(ctx context.Context) ([]Item, error) {
	items := make(chan Item)
	walkErr := make(chan error, 1)

	go func() {
		defer close(items)
		walkErr <- filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, s.suffix) {
				return nil
			}
			select {
			case items <- Item{Path: path, Address: s.address(path)}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()

	var out []Item
	for it := range items {
		out = append(out, it)
	}
	if err := <-walkErr; err != nil {
		return nil, fmt.Errorf("enumerate %s: %w", s.root, err)
	}
	return out, nil
}

type dayPoint struct {
	impressions int64
	clicks      int64
}

// Trend is the click-through series computed by the decay report.
type Trend struct {
	Days    []string
	CTR     []float64
	Skipped []string
}

// InsightsReport reads mirrored insights rows from a local database.
type InsightsReport struct {
	db *sql.DB
}

const insightsQuery = `SELECT json_extract(data, '$.date_start'), json_extract(data, '$.impressions'), json_extract(data, '$.clicks')
FROM resources WHERE resource_type = 'insights' AND json_extract(data, '$.ad_id') = ? ORDER BY 1`

// scanDays adds every row to the per-day totals and closes rows.
//
// ok: swallowcancel
func scanDays(rows *sql.Rows, byDate map[string]*dayPoint) error {
	defer rows.Close()
	for rows.Next() {
		var day string
		var imp, clk int64
		if err := rows.Scan(&day, &imp, &clk); err != nil {
			return fmt.Errorf("scan insights row: %w", err)
		}
		p := byDate[day]
		if p == nil {
			p = &dayPoint{}
			byDate[day] = p
		}
		p.impressions += imp
		p.clicks += clk
	}
	return rows.Err()
}

// buildTrend orders the per-day totals and computes the daily click-through.
//
// ok: swallowcancel
func buildTrend(byDate map[string]*dayPoint) Trend {
	var t Trend
	for day := range byDate {
		t.Days = append(t.Days, day)
	}
	sort.Strings(t.Days)
	for _, day := range t.Days {
		p := byDate[day]
		ctr := 0.0
		if p.impressions > 0 {
			ctr = float64(p.clicks) / float64(p.impressions)
		}
		t.CTR = append(t.CTR, ctr)
	}
	return t
}

// Decay queries the insights of every ad, aggregates them by day and fits a
// click-through trend over the result.
//
// From: mvanhorn/printing-press-library#911
// bug: swallowcancel
func (r *InsightsReport) Decay(ctx context.Context, adIDs []string) (Trend, error) {
	byDate := make(map[string]*dayPoint)
	for _, id := range adIDs {
		rows, err := r.db.QueryContext(ctx, insightsQuery, id)
		if err != nil {
			continue
		}
		if err := scanDays(rows, byDate); err != nil {
			return Trend{}, fmt.Errorf("ad %s: %w", id, err)
		}
	}
	return buildTrend(byDate), nil
}

// DecayNearMiss queries the insights of every ad, aggregates them by day and
// fits a click-through trend. A failed query ends the report with the
// query's error; ads without rows are listed in Skipped.
//
// ok: swallowcancel
func (r *InsightsReport) DecayNearMiss(ctx context.Context, adIDs []string) (Trend, error) {
	byDate := make(map[string]*dayPoint)
	var skipped []string
	for _, id := range adIDs {
		before := len(byDate)
		rows, err := r.db.QueryContext(ctx, insightsQuery, id)
		if err != nil {
			return Trend{}, fmt.Errorf("query insights for ad %s: %w", id, err)
		}
		if err := scanDays(rows, byDate); err != nil {
			return Trend{}, fmt.Errorf("ad %s: %w", id, err)
		}
		if len(byDate) == before {
			skipped = append(skipped, id)
		}
	}
	t := buildTrend(byDate)
	t.Skipped = skipped
	return t, nil
}

// ErrSubspaceCapExceeded is returned when a scan would return more bytes than
// the querier allows.
var ErrSubspaceCapExceeded = errors.New("subspace result exceeds byte cap")

// Pair is one key/value entry.
type Pair struct {
	Key   []byte
	Value []byte
}

// VersionedStore scans keys at a fixed version. Scan yields each pair, or a
// non-nil error once iteration cannot continue (I/O failure, deadline or
// cancellation).
type VersionedStore interface {
	Scan(ctx context.Context, prefix []byte, version int64) iter.Seq2[Pair, error]
}

// SubspaceQuerier answers prefix queries over a VersionedStore.
type SubspaceQuerier struct {
	store   VersionedStore
	version int64
	maxSize int
}

// marshalPairs encodes pairs as length-prefixed records.
//
// ok: swallowcancel
func marshalPairs(pairs []Pair) []byte {
	var b strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&b, "%d:%s%d:%s", len(p.Key), p.Key, len(p.Value), p.Value)
	}
	return []byte(b.String())
}

// ScanSubspace collects the pairs under prefix up to the byte cap and
// returns them encoded.
//
// From: sei-protocol/sei-chain#4009
// bug: swallowcancel
func (q *SubspaceQuerier) ScanSubspace(ctx context.Context, prefix []byte) ([]byte, error) {
	var pairs []Pair
	total := 0
	for p, err := range q.store.Scan(ctx, prefix, q.version) {
		if err != nil {
			break
		}
		total += len(p.Key) + len(p.Value)
		if total > q.maxSize {
			return nil, fmt.Errorf("%w: use a narrower prefix", ErrSubspaceCapExceeded)
		}
		pairs = append(pairs, p)
	}
	return marshalPairs(pairs), nil
}

// ScanSubspaceNearMiss collects the pairs under prefix up to the byte cap and
// returns them encoded; an iteration error ends the scan and is returned.
//
// ok: swallowcancel
func (q *SubspaceQuerier) ScanSubspaceNearMiss(ctx context.Context, prefix []byte) ([]byte, error) {
	var pairs []Pair
	total := 0
	for p, err := range q.store.Scan(ctx, prefix, q.version) {
		if err != nil {
			return nil, fmt.Errorf("scan subspace %q: %w", prefix, err)
		}
		total += len(p.Key) + len(p.Value)
		if total > q.maxSize {
			return nil, fmt.Errorf("%w: use a narrower prefix", ErrSubspaceCapExceeded)
		}
		pairs = append(pairs, p)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return marshalPairs(pairs), nil
}

// Column holds the decoded values of one column chunk.
type Column struct {
	Index  int
	Values []int64
}

// ColumnSource decodes a single column of the file.
type ColumnSource interface {
	ReadColumn(ctx context.Context, index int) (*Column, error)
}

// FileReader reads row groups with a bounded number of parallel decoders.
type FileReader struct {
	src      ColumnSource
	parallel int
}

// decode runs the decoder pool over cols, storing each decoded column at its
// position in results. It returns the first decoding error, after calling
// cancel so the other workers stop; it returns once every worker has exited.
//
// ok: swallowcancel
func (fr *FileReader) decode(ctx context.Context, cancel context.CancelFunc, cols []int, results []*Column) error {
	idx := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for w := 0; w < fr.parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case i, ok := <-idx:
					if !ok {
						return
					}
					col, err := fr.src.ReadColumn(ctx, cols[i])
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
							cancel()
						}
						mu.Unlock()
						return
					}
					results[i] = col
				}
			}
		}()
	}

send:
	for i := range cols {
		select {
		case idx <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(idx)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return firstErr
}

// ReadRowGroups decodes the requested columns with a pool of workers. The
// first decoding error cancels the remaining work and is returned.
//
// From: apache/arrow#43360
// bug: swallowcancel
func (fr *FileReader) ReadRowGroups(ctx context.Context, cols []int) ([]*Column, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	results := make([]*Column, len(cols))
	firstErr := fr.decode(ctx, cancel, cols, results)

	if firstErr != nil {
		return nil, firstErr
	}
	return results, nil
}

// ReadRowGroupsNearMiss decodes the requested columns with a pool of
// workers. The first decoding error cancels the remaining work and is
// returned; when the parent context ended first its error is returned.
//
// ok: swallowcancel
func (fr *FileReader) ReadRowGroupsNearMiss(ctx context.Context, cols []int) ([]*Column, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	results := make([]*Column, len(cols))
	firstErr := fr.decode(ctx, cancel, cols, results)

	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return results, nil
}

// Step is one transformation in a query plan.
type Step interface {
	Name() string
	Run(ctx context.Context) error
}

// Query tracks one execution of a plan.
type Query struct {
	plan []Step
	done chan struct{}

	mu  sync.Mutex
	err error
}

// NewQuery prepares a query for plan.
//
// ok: swallowcancel
func NewQuery(plan []Step) *Query {
	return &Query{plan: plan, done: make(chan struct{})}
}

// setErr records the first error of the execution.
//
// ok: swallowcancel
func (q *Query) setErr(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
}

// Err reports the error recorded by the execution once it has finished.
//
// ok: swallowcancel
func (q *Query) Err() error {
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Execute runs the plan step by step, checking the context between steps,
// and marks the query done when it stops.
//
// From: influxdata/flux#318
// bug: swallowcancel
func (q *Query) Execute(ctx context.Context) {
	defer close(q.done)
	for _, st := range q.plan {
		select {
		case <-ctx.Done():
			return
		default:
		}
		if err := st.Run(ctx); err != nil {
			q.setErr(fmt.Errorf("step %s: %w", st.Name(), err))
			return
		}
	}
}

// ExecuteNearMiss runs the plan step by step, checking the context between
// steps, records the context's error when it stops early, and marks the
// query done.
//
// ok: swallowcancel
func (q *Query) ExecuteNearMiss(ctx context.Context) {
	defer close(q.done)
	for _, st := range q.plan {
		select {
		case <-ctx.Done():
			q.setErr(ctx.Err())
			return
		default:
		}
		if err := st.Run(ctx); err != nil {
			q.setErr(fmt.Errorf("step %s: %w", st.Name(), err))
			return
		}
	}
}

// Job is one unit of background work.
type Job struct{ ID string }

// Worker processes jobs one at a time.
type Worker struct {
	handle func(ctx context.Context, j Job) error
	logger *log.Logger
}

// Drain processes jobs in order. A failing job is logged and the worker moves
// on to the next one; when the context ends, Drain stops and returns the
// context's error.
//
// ok: swallowcancel
func (w *Worker) Drain(ctx context.Context, jobs []Job) error {
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.handle(ctx, j); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return fmt.Errorf("job %s interrupted: %w", j.ID, ctxErr)
			}
			w.logger.Printf("job %s failed, continuing: %v", j.ID, err)
		}
	}
	return nil
}

// firstConcrete picks the first error that is not a context error, falling
// back to the first error in the list.
//
// ok: swallowcancel
func firstConcrete(errs []error) error {
	for _, err := range errs {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// FetchAll fetches every key in parallel. Workers that observe the group's
// context ending return its error; the caller receives the first concrete
// failure, or the cancellation when nothing else failed.
//
// ok: swallowcancel
func FetchAll(ctx context.Context, keys []string, fetch func(context.Context, string) ([]byte, error)) (map[string][]byte, error) {
	g, gctx := errgroup.WithContext(ctx)
	var (
		mu   sync.Mutex
		out  = make(map[string][]byte, len(keys))
		errs []error
	)
	for _, k := range keys {
		g.Go(func() error {
			select {
			case <-gctx.Done():
				return gctx.Err()
			default:
			}
			v, err := fetch(gctx, k)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("fetch %s: %w", k, err))
				return err
			}
			out[k] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		mu.Lock()
		defer mu.Unlock()
		if c := firstConcrete(errs); c != nil {
			return nil, c
		}
		return nil, err
	}
	return out, nil
}
