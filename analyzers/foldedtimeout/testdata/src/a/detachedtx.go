package a

import (
	"context"
	"fmt"
)

// recStore runs transactions under the context each call is given; a tx
// checks it.
type recStore struct{}

type storeTx struct{ ctx context.Context }

func (tx *storeTx) insert(v any) error { return tx.ctx.Err() }

func (s *recStore) write(ctx context.Context, fn func(tx *storeTx) error) error {
	return fn(&storeTx{ctx: ctx})
}

func nextSeq(tx *storeTx) (int, error) { return 0, tx.insert(1) }

// Under a caller's context the tx's errors carry its cancellation.
func initRecords(ctx context.Context, s *recStore) error {
	return s.write(ctx, func(tx *storeTx) error {
		if err := tx.insert("x"); err != nil {
			return fmt.Errorf("insert: %v", err) // want `fmt.Errorf formats err with %v`
		}
		return nil
	})
}

// Near-miss: the transaction runs under context.TODO(), which never ends:
// neither tx's errors nor those of a helper given tx can be a cancellation.
func initRecordsTODO(s *recStore) error {
	return s.write(context.TODO(), func(tx *storeTx) error {
		if err := tx.insert("x"); err != nil {
			return fmt.Errorf("insert: %v", err)
		}
		if _, err := nextSeq(tx); err != nil {
			return fmt.Errorf("next seq: %v", err)
		}
		return nil
	})
}
