package lease

import (
	"context"
	"database/sql"
	"fmt"
)

// Blog serves article listings from the database.
type Blog struct {
	db *sql.DB
}

// CategoryArticleCounts counts published articles per category. The rows
// are never closed, so each call pins a pooled connection.
// From: 88250/pipe#46
// bug: leaseleak
func (b *Blog) CategoryArticleCounts(ctx context.Context, blogID int64) (map[string]int, error) {
	rows, err := b.db.QueryContext(ctx,
		"SELECT c.title, count(a.id) FROM categories c JOIN articles a ON a.category_id = c.id WHERE c.blog_id = ? GROUP BY c.title", blogID)
	if err != nil {
		return nil, fmt.Errorf("query categories: %w", err)
	}
	counts := make(map[string]int)
	for rows.Next() {
		var title string
		var n int
		if err := rows.Scan(&title, &n); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		counts[title] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("iterate: %w", err)
	}
	return counts, nil
}

// CategoryArticleCountsNearMiss closes the rows on every path.
// ok: leaseleak
func (b *Blog) CategoryArticleCountsNearMiss(ctx context.Context, blogID int64) (map[string]int, error) {
	rows, err := b.db.QueryContext(ctx,
		"SELECT c.title, count(a.id) FROM categories c JOIN articles a ON a.category_id = c.id WHERE c.blog_id = ? GROUP BY c.title", blogID)
	if err != nil {
		return nil, fmt.Errorf("query categories: %w", err)
	}
	defer rows.Close()
	counts := make(map[string]int)
	for rows.Next() {
		var title string
		var n int
		if err := rows.Scan(&title, &n); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		counts[title] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("iterate: %w", err)
	}
	return counts, nil
}
