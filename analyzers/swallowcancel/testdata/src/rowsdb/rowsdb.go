// Package rowsdb is a stub of a database driver with a row iterator.
package rowsdb

import "context"

type DB struct{}

type Rows struct{}

func (r *Rows) Next() bool            { return false }
func (r *Rows) Scan(dst ...any) error { return nil }
func (r *Rows) Err() error            { return nil }
func (r *Rows) Close() error          { return nil }

func (db *DB) Query(ctx context.Context, q string) (*Rows, error) { return &Rows{}, nil }

// Cursor advances under a context.
type Cursor struct{}

func (c *Cursor) Next(ctx context.Context) bool { return false }
func (c *Cursor) Err() error                    { return nil }

func (db *DB) Find(q string) *Cursor { return &Cursor{} }

// Lines has a Next and an Err but no context: a local reader.
type Lines struct{}

func (l *Lines) Next() bool    { return false }
func (l *Lines) Err() error    { return nil }
func NewLines(s string) *Lines { return &Lines{} }
