package orphan

import "context"

// Item is one table row.
type Item map[string]string

// Page is one scan page.
type Page struct {
	Items   []Item
	LastKey map[string]string
}

// ScanAPI pages through a table.
type ScanAPI interface {
	Scan(ctx context.Context, table string, start map[string]string) (Page, error)
}

// Table is a DynamoDB-style table.
type Table struct {
	db   ScanAPI
	name string
}

// StreamAll streams every item of the table. Items arrive on the first
// channel; a failure is reported on the second.
//
// From: vsco/domino#30
// bug: orphansend
func (t *Table) StreamAll(ctx context.Context) (<-chan Item, <-chan error) {
	items := make(chan Item)
	errc := make(chan error)
	go func() {
		defer close(items)
		var start map[string]string
		for {
			page, err := t.db.Scan(ctx, t.name, start)
			if err != nil {
				errc <- err
				return
			}
			for _, it := range page.Items {
				select {
				case items <- it:
				case <-ctx.Done():
					return
				}
			}
			if page.LastKey == nil {
				return
			}
			start = page.LastKey
		}
	}()
	return items, errc
}

// StreamAllNearMiss gives the error channel room for its single value and
// closes it, so a caller that drains items first and checks errors later,
// or never, does not strand the producer.
//
// ok: orphansend
func (t *Table) StreamAllNearMiss(ctx context.Context) (<-chan Item, <-chan error) {
	items := make(chan Item)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(items)
		var start map[string]string
		for {
			page, err := t.db.Scan(ctx, t.name, start)
			if err != nil {
				errc <- err
				return
			}
			for _, it := range page.Items {
				select {
				case items <- it:
				case <-ctx.Done():
					return
				}
			}
			if page.LastKey == nil {
				return
			}
			start = page.LastKey
		}
	}()
	return items, errc
}

// CountItems drains the stream and then checks for an error.
//
// ok: orphansend
func CountItems(ctx context.Context, t *Table) (int, error) {
	items, errc := t.StreamAllNearMiss(ctx)
	n := 0
	for range items {
		n++
	}
	if err := <-errc; err != nil {
		return n, err
	}
	return n, nil
}
