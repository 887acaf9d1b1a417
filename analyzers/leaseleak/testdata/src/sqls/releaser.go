package sqls

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"os"
)

// rollbackUnlessDone is deferred right after BeginTx; it skips the
// rollback once the request is gone.
func rollbackUnlessDone(ctx context.Context, tx *sql.Tx) {
	if ctx.Err() != nil {
		return // want `rollbackUnlessDone releases its parameter tx on some paths, so callers hand tx to it to be released, but the return when ctx.Err\(\) != nil skips the release: the caller's \*sql.Tx stays held`
	}
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		log.Printf("rollback: %v", err)
	}
}

// Near-miss: it rolls back first and looks at the context only to decide
// whether to log.
func rollbackQuietly(ctx context.Context, tx *sql.Tx) {
	err := tx.Rollback()
	if err == nil || errors.Is(err, sql.ErrTxDone) || ctx.Err() != nil {
		return
	}
	log.Printf("rollback: %v", err)
}

// Near-miss: a nil transaction holds nothing.
func rollbackIfAny(tx *sql.Tx) {
	if tx == nil {
		return
	}
	_ = tx.Rollback()
}

// syncAndClose syncs the file before closing it, and returns early when the
// sync fails.
func syncAndClose(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err // want `syncAndClose releases its parameter f on some paths, so callers hand f to it to be released, but the return when err != nil skips the release: the caller's \*os.File stays held`
	}
	return f.Close()
}

// Near-miss: the close happens whatever the sync did.
func syncAndCloseAlways(f *os.File) error {
	serr := f.Sync()
	cerr := f.Close()
	return errors.Join(serr, cerr)
}

// Near-miss: closing is the caller's choice, made with keep.
func maybeClose(f *os.File, keep bool) {
	if keep {
		return
	}
	_ = f.Close()
}

func useReleasers(ctx context.Context, db *sql.DB, f *os.File) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollbackUnlessDone(ctx, tx)
	return syncAndClose(f)
}

type itemStore interface {
	Put(ctx context.Context, item string) error
	Close() error
}

// Near-miss: Put stores an item; it shares a pool's release name but
// releases nothing, so an early return after it leaves nothing held.
func mirrorItems(ctx context.Context, dst itemStore, items []string) error {
	for _, it := range items {
		if err := dst.Put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}
