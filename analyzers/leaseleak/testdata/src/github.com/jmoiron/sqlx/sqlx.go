// Package sqlx is a stub of github.com/jmoiron/sqlx.
package sqlx

import (
	"context"
	"database/sql"
)

type DB struct{ *sql.DB }

type Rows struct{ *sql.Rows }

type Stmt struct{ *sql.Stmt }

type NamedStmt struct{}

func (n *NamedStmt) Close() error { return nil }

func (db *DB) Queryx(query string, args ...any) (*Rows, error) { return nil, nil }

func (db *DB) QueryxContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	return nil, nil
}

func (db *DB) Preparex(query string) (*Stmt, error) { return nil, nil }

func (db *DB) PrepareNamed(query string) (*NamedStmt, error) { return nil, nil }
