package a

import "context"

// fileIter is an iterator whose Close reports the iteration's error.
type fileIter interface {
	Next() bool
	Err() error
	Close() error
}

type listing struct {
	names []string
	err   error
}

func (l *listing) Next() bool   { return len(l.names) > 0 }
func (l *listing) Err() error   { return l.err }
func (l *listing) Close() error { return l.err }

type cursor struct {
	err, closeErr error
}

func (c *cursor) Next() bool   { return false }
func (c *cursor) Err() error   { return c.err }
func (c *cursor) Close() error { return c.closeErr }

func openFiles(ctx context.Context) (fileIter, error)   { return nil, ctx.Err() }
func openListing(ctx context.Context) (*listing, error) { return nil, ctx.Err() }
func openCursor(ctx context.Context) (*cursor, error)   { return nil, ctx.Err() }

// countFiles checks the iterator's error through Close.
func countFiles(ctx context.Context) (int, error) {
	itr, err := openFiles(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for itr.Next() {
		n++
	}
	return n, itr.Close()
}

// countListing: Close returns what Err returns.
func countListing(ctx context.Context) (int, error) {
	l, err := openListing(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for l.Next() {
		n++
	}
	if err := l.Close(); err != nil {
		return 0, err
	}
	return n, nil
}

// countCursor checks Close, which reports only closing.
func countCursor(ctx context.Context) (int, error) {
	c, err := openCursor(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for c.Next() { // want `c.Err\(\) is never checked`
		n++
	}
	if err := c.Close(); err != nil {
		return 0, err
	}
	return n, nil
}
