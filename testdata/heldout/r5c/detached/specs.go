package detached

import (
	"context"
	"database/sql"
)

// Hit is one full-text search result.
type Hit struct {
	Spec, Section, Snippet string
}

// SpecDB searches 3GPP specifications.
type SpecDB struct {
	conn *sql.DB
}

// Search counts and then lists matches. The count runs on ctx, but the
// expensive listing uses conn.Query, which runs on context.Background, so a
// canceled tool call keeps the FTS query running and holds the connection.
// From: higebu/3gpp-mcp#106
// bug: detachedctx
func (d *SpecDB) Search(ctx context.Context, term string, limit int) (int, []Hit, error) {
	var total int
	if err := d.conn.QueryRowContext(ctx, `SELECT count(*) FROM sections WHERE sections MATCH ?`, term).Scan(&total); err != nil {
		return 0, nil, err
	}
	rows, err := d.conn.Query(`SELECT spec, section, snippet(sections, 2, '[', ']', '…', 12) FROM sections WHERE sections MATCH ? ORDER BY rank LIMIT ?`, term, limit)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.Spec, &h.Section, &h.Snippet); err != nil {
			return 0, nil, err
		}
		hits = append(hits, h)
	}
	return total, hits, rows.Err()
}

// SearchTitles is the near-miss of Search: both statements run with
// QueryRowContext/QueryContext on ctx.
// From: higebu/3gpp-mcp#106
// ok: detachedctx
func (d *SpecDB) SearchTitles(ctx context.Context, term string, limit int) (int, []Hit, error) {
	var total int
	if err := d.conn.QueryRowContext(ctx, `SELECT count(*) FROM titles WHERE titles MATCH ?`, term).Scan(&total); err != nil {
		return 0, nil, err
	}
	rows, err := d.conn.QueryContext(ctx, `SELECT spec, section, title FROM titles WHERE titles MATCH ? ORDER BY rank LIMIT ?`, term, limit)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.Spec, &h.Section, &h.Snippet); err != nil {
			return 0, nil, err
		}
		hits = append(hits, h)
	}
	return total, hits, rows.Err()
}
