package lease

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// collect runs query and scans every row with scan.
// From: kenn-io/msgvault#28
// bug: leaseleak
func collect[T any](ctx context.Context, db *sql.DB, query string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	var out []T
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// collectNearMiss closes the rows on every return.
// ok: leaseleak
func collectNearMiss[T any](ctx context.Context, db *sql.DB, query string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Compose is one image build request.
type Compose struct {
	ID      string
	Request []byte
}

// ComposeDB persists compose requests.
type ComposeDB struct {
	db *sql.DB
}

const insertCompose = `INSERT INTO composes (job_id, org_id, request) VALUES ($1, $2, $3)`

// InsertComposes stores a batch of composes with one prepared statement.
// From: osbuild/image-builder-crc#943
// bug: leaseleak
func (d *ComposeDB) InsertComposes(ctx context.Context, org string, cs []Compose) error {
	stmt, err := d.db.PrepareContext(ctx, insertCompose)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	for _, c := range cs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, c.ID, org, c.Request); err != nil {
			return fmt.Errorf("insert compose %s: %w", c.ID, err)
		}
	}
	return stmt.Close()
}

// InsertComposesNearMiss closes the prepared statement on every path.
// ok: leaseleak
func (d *ComposeDB) InsertComposesNearMiss(ctx context.Context, org string, cs []Compose) error {
	stmt, err := d.db.PrepareContext(ctx, insertCompose)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	defer stmt.Close()
	for _, c := range cs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, c.ID, org, c.Request); err != nil {
			return fmt.Errorf("insert compose %s: %w", c.ID, err)
		}
	}
	return nil
}

// Segment is a path segment to be cached.
type Segment struct {
	ID     string
	Raw    []byte
	Expiry int64
}

// PathDB caches path segments.
type PathDB struct {
	db *sql.DB
}

const upsertSeg = `INSERT OR REPLACE INTO segments (id, raw, expiry) VALUES (?, ?, ?)`

// StoreSegments inserts segments in one transaction.
// From: scionproto/scion#2537
// bug: leaseleak
func (p *PathDB) StoreSegments(ctx context.Context, segs []Segment) (int, error) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	inserted := 0
	for _, s := range segs {
		res, err := tx.ExecContext(ctx, upsertSeg, s.ID, s.Raw, s.Expiry)
		if err != nil {
			return 0, fmt.Errorf("store segment %s: %w", s.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		inserted += int(n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return inserted, nil
}

// StoreSegmentsNearMiss rolls the transaction back when it is not committed.
// ok: leaseleak
func (p *PathDB) StoreSegmentsNearMiss(ctx context.Context, segs []Segment) (int, error) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	inserted := 0
	for _, s := range segs {
		res, err := tx.ExecContext(ctx, upsertSeg, s.ID, s.Raw, s.Expiry)
		if err != nil {
			return 0, fmt.Errorf("store segment %s: %w", s.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		inserted += int(n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return inserted, nil
}

// VolumeClient talks to the storage controller over HTTP.
type VolumeClient struct {
	http *http.Client
	base string
}

type activateResponse struct {
	Backends []string `json:"backends"`
}

// Activate enables a storage backend on the controller.
// From: IBM/ubiquity#158
// bug: leaseleak
func (c *VolumeClient) Activate(ctx context.Context, backend string) ([]string, error) {
	body := strings.NewReader(`{"backend":"` + backend + `"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/activate", body)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("activate %s: %w", backend, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("activate %s: unexpected status %d", backend, resp.StatusCode)
	}
	defer resp.Body.Close()
	var out activateResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode activate response: %w", err)
	}
	return out.Backends, nil
}

// ActivateNearMiss closes the body before looking at the status.
// ok: leaseleak
func (c *VolumeClient) ActivateNearMiss(ctx context.Context, backend string) ([]string, error) {
	body := strings.NewReader(`{"backend":"` + backend + `"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/activate", body)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("activate %s: %w", backend, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("activate %s: unexpected status %d", backend, resp.StatusCode)
	}
	var out activateResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode activate response: %w", err)
	}
	return out.Backends, nil
}
