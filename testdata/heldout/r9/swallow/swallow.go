// Package swallow holds code paths where an error that can carry
// context.Canceled / context.DeadlineExceeded is dropped, so callers believe
// the work finished.
package swallow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Expiration mailer (letsencrypt/boulder#6069)
// ---------------------------------------------------------------------------

// Registration is the account a certificate belongs to.
type Registration struct {
	ID      int64
	Contact []string
}

// RegistrationFetcher fetches accounts over gRPC.
type RegistrationFetcher interface {
	GetRegistration(ctx context.Context, id int64) (*Registration, error)
}

// Mailer sends expiration warnings.
type Mailer interface {
	Send(ctx context.Context, to []string, subject, body string) error
}

// ExpirationMailer walks certificates that are about to expire and warns
// their owners.
type ExpirationMailer struct {
	rf     RegistrationFetcher
	mail   Mailer
	logger *log.Logger
	sent   map[int64]time.Time
}

// NewExpirationMailer builds a mailer.
// ok: swallowcancel
func NewExpirationMailer(rf RegistrationFetcher, m Mailer, l *log.Logger) *ExpirationMailer {
	return &ExpirationMailer{rf: rf, mail: m, logger: l, sent: make(map[int64]time.Time)}
}

// ExpirationMailerNearMiss is the fixed mailer.
type ExpirationMailerNearMiss struct {
	ExpirationMailer
}

// SendNags processes one batch of registration IDs. A failure on a single
// work item is logged and the batch goes on, so one bad account does not
// block everybody else.
//
// From: letsencrypt/boulder#6069
// bug: swallowcancel
func (m *ExpirationMailer) SendNags(ctx context.Context, regIDs []int64, serial string) error {
	for _, id := range regIDs {
		reg, err := m.rf.GetRegistration(ctx, id)
		if err != nil {
			// A canceled context makes every remaining item fail the same
			// way, but it is logged and skipped like any other item.
			m.logger.Printf("[AUDIT] Error fetching registration %d: %v", id, err)
			continue
		}
		if len(reg.Contact) == 0 {
			continue
		}
		body := fmt.Sprintf("Your certificate %s expires soon.", serial)
		if err := m.mail.Send(ctx, reg.Contact, "Certificate expiration notice", body); err != nil {
			m.logger.Printf("[AUDIT] Error sending nag to %d: %v", id, err)
			continue
		}
		m.sent[id] = time.Now()
	}
	return nil
}

// SendNags processes one batch of registration IDs, skipping items that fail
// for their own reasons but aborting the batch when the context is done.
//
// ok: swallowcancel
func (m *ExpirationMailerNearMiss) SendNags(ctx context.Context, regIDs []int64, serial string) error {
	for _, id := range regIDs {
		reg, err := m.rf.GetRegistration(ctx, id)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("fetching registration %d: %w", id, err)
			}
			m.logger.Printf("[AUDIT] Error fetching registration %d: %v", id, err)
			continue
		}
		if len(reg.Contact) == 0 {
			continue
		}
		body := fmt.Sprintf("Your certificate %s expires soon.", serial)
		if err := m.mail.Send(ctx, reg.Contact, "Certificate expiration notice", body); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("sending nag to %d: %w", id, err)
			}
			m.logger.Printf("[AUDIT] Error sending nag to %d: %v", id, err)
			continue
		}
		m.sent[id] = time.Now()
	}
	return nil
}

// ---------------------------------------------------------------------------
// Generic result collection (upper/db#474)
// ---------------------------------------------------------------------------

// Session is a thin database handle.
type Session struct {
	db *sql.DB
}

// Collect runs query and maps every row through scan. It is used by all the
// typed finders of the data layer.
//
// From: upper/db#474
// bug: swallowcancel
func Collect[T any](ctx context.Context, s *Session, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	// rows.Next returned false: either the result set is exhausted, or the
	// query was interrupted (e.g. the context was canceled). The latter is
	// only visible via rows.Err(), which is never consulted here.
	return out, nil
}

// CollectNearMiss is Collect with the iteration error returned.
//
// ok: swallowcancel
func CollectNearMiss[T any](ctx context.Context, s *Session, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Postgres-backed config store (cortexproject/cortex#3197)
// ---------------------------------------------------------------------------

// View is one stored per-tenant config.
type View struct {
	ID        int64
	Config    []byte
	DeletedAt *time.Time
}

// ConfigStore keeps tenant configs in Postgres.
type ConfigStore struct {
	db *sql.DB
}

// ConfigStoreNearMiss is the fixed store.
type ConfigStoreNearMiss struct {
	db *sql.DB
}

// FindConfigs returns the newest config of every tenant matching where.
//
// From: cortexproject/cortex#3197
// bug: swallowcancel
func (d ConfigStore) FindConfigs(ctx context.Context, where string, args ...any) (map[string]View, error) {
	q := "SELECT id, owner_id, config, deleted_at FROM configs WHERE " + where + " ORDER BY id DESC"
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	cfgs := map[string]View{}
	for rows.Next() {
		var v View
		var owner string
		var deleted sql.NullTime
		if err := rows.Scan(&v.ID, &owner, &v.Config, &deleted); err != nil {
			return nil, err
		}
		if deleted.Valid {
			t := deleted.Time
			v.DeletedAt = &t
		}
		if _, seen := cfgs[owner]; !seen {
			cfgs[owner] = v
		}
	}
	// Missing rows.Err(): an aborted query yields a truncated map that the
	// ruler then treats as the full set of tenants.
	return cfgs, nil
}

// FindConfigs returns the newest config of every tenant matching where.
//
// ok: swallowcancel
func (d ConfigStoreNearMiss) FindConfigs(ctx context.Context, where string, args ...any) (map[string]View, error) {
	q := "SELECT id, owner_id, config, deleted_at FROM configs WHERE " + where + " ORDER BY id DESC"
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	cfgs := map[string]View{}
	for rows.Next() {
		var v View
		var owner string
		var deleted sql.NullTime
		if err := rows.Scan(&v.ID, &owner, &v.Config, &deleted); err != nil {
			return nil, err
		}
		if deleted.Valid {
			t := deleted.Time
			v.DeletedAt = &t
		}
		if _, seen := cfgs[owner]; !seen {
			cfgs[owner] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading configs: %w", err)
	}
	return cfgs, nil
}

// ---------------------------------------------------------------------------
// Parallel multipart upload (matrixorigin/matrixone#29267)
// ---------------------------------------------------------------------------

// Part is one chunk of a multipart upload.
type Part struct {
	Number int
	Data   []byte
}

// CompletedPart is what the object store returned for an uploaded part.
type CompletedPart struct {
	Number int
	ETag   string
}

// MultipartAPI is the subset of an S3-style client used below.
type MultipartAPI interface {
	CreateMultipartUpload(ctx context.Context, key string) (uploadID string, err error)
	UploadPart(ctx context.Context, key, uploadID string, p Part) (CompletedPart, error)
	CompleteMultipartUpload(ctx context.Context, key, uploadID string, parts []CompletedPart) error
	AbortMultipartUpload(ctx context.Context, key, uploadID string) error
}

// ObjectWriter uploads large objects in parallel parts.
type ObjectWriter struct {
	api         MultipartAPI
	parallelism int
	releasePart func(Part)
}

// ObjectWriterNearMiss is the fixed writer.
type ObjectWriterNearMiss struct {
	ObjectWriter
}

// WriteMultipartParallel uploads parts with bounded parallelism and completes
// the upload when every part is in.
//
// From: matrixorigin/matrixone#29267
// bug: swallowcancel
func (w *ObjectWriter) WriteMultipartParallel(ctx context.Context, key string, parts []Part) error {
	uploadID, err := w.api.CreateMultipartUpload(ctx, key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu       sync.Mutex
		firstErr error
		done     = make([]CompletedPart, len(parts))
		wg       sync.WaitGroup
		slots    = make(chan struct{}, w.parallelism)
	)
	setErr := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}

parts:
	for i, p := range parts {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			w.releasePart(p)
			setErr(ctx.Err())
			break parts
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if ctx.Err() != nil {
				// Parent canceled before this part started: the part is
				// silently skipped and nothing records why.
				w.releasePart(p)
				return
			}
			cp, err := w.api.UploadPart(ctx, key, uploadID, p)
			w.releasePart(p)
			if err != nil {
				setErr(err)
				return
			}
			done[i] = cp
		}()
	}
	wg.Wait()

	if firstErr != nil {
		_ = w.api.AbortMultipartUpload(context.WithoutCancel(ctx), key, uploadID)
		return firstErr
	}
	return w.api.CompleteMultipartUpload(context.WithoutCancel(ctx), key, uploadID, done)
}

// WriteMultipartParallel uploads parts with bounded parallelism and completes
// the upload when every part is in.
//
// ok: swallowcancel
func (w *ObjectWriterNearMiss) WriteMultipartParallel(ctx context.Context, key string, parts []Part) error {
	uploadID, err := w.api.CreateMultipartUpload(ctx, key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu       sync.Mutex
		firstErr error
		done     = make([]CompletedPart, len(parts))
		wg       sync.WaitGroup
		slots    = make(chan struct{}, w.parallelism)
	)
	setErr := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}

parts:
	for i, p := range parts {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			w.releasePart(p)
			setErr(ctx.Err())
			break parts
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := ctx.Err(); err != nil {
				w.releasePart(p)
				setErr(err)
				return
			}
			cp, err := w.api.UploadPart(ctx, key, uploadID, p)
			w.releasePart(p)
			if err != nil {
				setErr(err)
				return
			}
			done[i] = cp
		}()
	}
	wg.Wait()

	if firstErr != nil {
		_ = w.api.AbortMultipartUpload(context.WithoutCancel(ctx), key, uploadID)
		return firstErr
	}
	return w.api.CompleteMultipartUpload(context.WithoutCancel(ctx), key, uploadID, done)
}

// ---------------------------------------------------------------------------
// Paged object listing (minio/minio-go#1850)
// ---------------------------------------------------------------------------

// ObjectInfo describes one listed object.
type ObjectInfo struct {
	Key  string
	Size int64
}

// listPage is one ListObjectsV2 response.
type listPage struct {
	Contents              []ObjectInfo
	NextContinuationToken string
	IsTruncated           bool
}

// pageFetcher issues a single ListObjectsV2 request.
type pageFetcher func(ctx context.Context, bucket, prefix, token string) (listPage, error)

// Lister streams listings page by page.
type Lister struct {
	fetch pageFetcher
}

// ListObjects streams every object under prefix on the returned channel. After
// the channel is closed, the returned function reports why the listing ended
// (nil means the listing is complete).
//
// From: minio/minio-go#1850
// bug: swallowcancel
func (l *Lister) ListObjects(ctx context.Context, bucket, prefix string) (<-chan ObjectInfo, func() error) {
	out := make(chan ObjectInfo)
	var final error
	go func() {
		defer close(out)
		token := ""
		for {
			page, err := l.fetch(ctx, bucket, prefix, token)
			if err != nil {
				final = err
				return
			}
			for _, obj := range page.Contents {
				select {
				case out <- obj:
				case <-ctx.Done():
					// Stopping mid-page on cancellation, but final stays nil,
					// so the consumer sees a clean, complete listing.
					return
				}
			}
			if !page.IsTruncated {
				return
			}
			token = page.NextContinuationToken
		}
	}()
	return out, func() error { return final }
}

// ListObjectsNearMiss is ListObjects reporting the context error when the
// listing stops early.
//
// ok: swallowcancel
func (l *Lister) ListObjectsNearMiss(ctx context.Context, bucket, prefix string) (<-chan ObjectInfo, func() error) {
	out := make(chan ObjectInfo)
	var final error
	go func() {
		defer close(out)
		token := ""
		for {
			page, err := l.fetch(ctx, bucket, prefix, token)
			if err != nil {
				final = err
				return
			}
			for _, obj := range page.Contents {
				select {
				case out <- obj:
				case <-ctx.Done():
					final = ctx.Err()
					return
				}
			}
			if !page.IsTruncated {
				return
			}
			token = page.NextContinuationToken
		}
	}()
	return out, func() error { return final }
}

// ---------------------------------------------------------------------------
// Bucket iteration on top of a channel-based client (thanos-io/objstore#62)
// ---------------------------------------------------------------------------

// S3Object is what the S3 SDK sends on its listing channel; Err is set on a
// failed listing, but the SDK may also close the channel early without one
// when the context is canceled.
type S3Object struct {
	Key string
	Err error
}

// S3Client is the subset of the SDK used by Bucket.
type S3Client interface {
	ListObjects(ctx context.Context, bucket, prefix string) <-chan S3Object
}

// Bucket is an objstore.Bucket implementation for S3.
type Bucket struct {
	name   string
	client S3Client
}

// BucketNearMiss is the fixed bucket.
type BucketNearMiss struct {
	name   string
	client S3Client
}

// Iter calls f for every entry under dir.
//
// From: thanos-io/objstore#62
// bug: swallowcancel
func (b *Bucket) Iter(ctx context.Context, dir string, f func(string) error) error {
	if dir != "" && !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	for object := range b.client.ListObjects(ctx, b.name, dir) {
		if object.Err != nil {
			return object.Err
		}
		if object.Key == "" || object.Key == dir {
			continue
		}
		if err := f(object.Key); err != nil {
			return err
		}
	}
	return nil
}

// Iter calls f for every entry under dir.
//
// ok: swallowcancel
func (b *BucketNearMiss) Iter(ctx context.Context, dir string, f func(string) error) error {
	if dir != "" && !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	for object := range b.client.ListObjects(ctx, b.name, dir) {
		if object.Err != nil {
			return object.Err
		}
		if object.Key == "" || object.Key == dir {
			continue
		}
		if err := f(object.Key); err != nil {
			return err
		}
	}
	// The SDK can close the channel early on cancellation without sending
	// an error, so surface the context's error explicitly.
	return ctx.Err()
}

// ---------------------------------------------------------------------------
// Server-side listing (minio/minio#17804)
// ---------------------------------------------------------------------------

// ListOptions selects a listing.
type ListOptions struct {
	Bucket    string
	Prefix    string
	Marker    string
	MaxKeys   int
	Recursive bool
}

// ListResult is returned to the S3 handler.
type ListResult struct {
	Objects     []ObjectInfo
	IsTruncated bool
	NextMarker  string
}

// metacache walks drives and merges their entries.
type metacache interface {
	Gather(ctx context.Context, o ListOptions) ([]ObjectInfo, bool, error)
}

// ServerPools lists across erasure sets.
type ServerPools struct {
	cache metacache
}

// ListPath serves ListObjects variants.
//
// From: minio/minio#17804
// bug: swallowcancel
func (z *ServerPools) ListPath(ctx context.Context, o ListOptions) (ListResult, error) {
	if o.MaxKeys == 0 {
		return ListResult{}, nil
	}
	entries, truncated, err := z.cache.Gather(ctx, o)
	if err != nil && !errors.Is(err, context.Canceled) {
		return ListResult{}, err
	}
	// On cancellation entries is empty or partial and err is dropped, so the
	// handler answers 200 OK with a short list.
	res := ListResult{Objects: entries, IsTruncated: truncated}
	if truncated && len(entries) > 0 {
		res.NextMarker = entries[len(entries)-1].Key
	}
	return res, nil
}

// ListPathNearMiss serves ListObjects variants.
//
// ok: swallowcancel
func (z *ServerPools) ListPathNearMiss(ctx context.Context, o ListOptions) (ListResult, error) {
	if o.MaxKeys == 0 {
		return ListResult{}, nil
	}
	entries, truncated, err := z.cache.Gather(ctx, o)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Objects: entries, IsTruncated: truncated}
	if truncated && len(entries) > 0 {
		res.NextMarker = entries[len(entries)-1].Key
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// Component runner (smithy-security/smithy#1118)
// ---------------------------------------------------------------------------

// Component is one step of a scanning workflow.
type Component struct {
	Name    string
	Image   string
	Args    []string
	Timeout time.Duration
}

// Runner executes workflow components as containers.
type Runner struct {
	containerCLI string
	logger       *log.Logger
}

// RunComponent runs one component and reports whether it failed.
//
// From: smithy-security/smithy#1118
// bug: swallowcancel
func (r *Runner) RunComponent(ctx context.Context, c Component) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()

	args := append([]string{"run", "--rm", c.Image}, c.Args...)
	cmd := exec.CommandContext(ctx, r.containerCLI, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// A component that hit its timeout is reported as done.
			r.logger.Printf("component %s timed out after %s", c.Name, c.Timeout)
			return nil
		}
		return fmt.Errorf("component %s failed: %w: %s", c.Name, err, out)
	}
	return nil
}

// RunComponentNearMiss runs one component and reports whether it failed.
//
// ok: swallowcancel
func (r *Runner) RunComponentNearMiss(ctx context.Context, c Component) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()

	args := append([]string{"run", "--rm", c.Image}, c.Args...)
	cmd := exec.CommandContext(ctx, r.containerCLI, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctxErr := ctx.Err(); errors.Is(ctxErr, context.DeadlineExceeded) {
			r.logger.Printf("component %s timed out after %s", c.Name, c.Timeout)
			return fmt.Errorf("component %s: %w", c.Name, ctxErr)
		}
		return fmt.Errorf("component %s failed: %w: %s", c.Name, err, out)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// Server is a long-running component owned by main.
type Server struct {
	serve func(ctx context.Context) error
}

// Run serves until the process is asked to stop. The caller cancels ctx to
// request a graceful shutdown, so a cancellation that the caller itself
// requested is the expected way to end and is not an error.
//
// ok: swallowcancel
func (s *Server) Run(ctx context.Context) error {
	err := s.serve(ctx)
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == context.Canceled {
		return nil
	}
	return err
}

// WarmCache preloads keys on a best-effort basis. It has no error result by
// design: a miss just means the first real request pays for the load. It
// still stops as soon as the context is done.
//
// ok: swallowcancel
func WarmCache(ctx context.Context, keys []string, load func(context.Context, string) error, logger *log.Logger) {
	for _, k := range keys {
		if ctx.Err() != nil {
			return
		}
		if err := load(ctx, k); err != nil {
			logger.Printf("warm cache: %s: %v", k, err)
		}
	}
}

// DeleteAll deletes every key, collecting per-key failures, but treats a done
// context as fatal.
//
// ok: swallowcancel
func DeleteAll(ctx context.Context, keys []string, del func(context.Context, string) error) error {
	var errs []error
	for _, k := range keys {
		if err := del(ctx, k); err != nil {
			if ctx.Err() != nil {
				return errors.Join(append(errs, err)...)
			}
			errs = append(errs, fmt.Errorf("delete %s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// LookupOptional returns the row for id, treating "no such row" as absent
// rather than as a failure.
//
// ok: swallowcancel
func LookupOptional(ctx context.Context, db *sql.DB, id int64) (*View, error) {
	var v View
	err := db.QueryRowContext(ctx, "SELECT id, config FROM configs WHERE id = $1", id).Scan(&v.ID, &v.Config)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}
