package old

import "context"

type Tx struct{}

func (Tx) Rollback(ctx context.Context) error { return nil }

func fetch(ctx context.Context) error { return nil }

// Before Go 1.21 there is no WithoutCancel: a cleanup root is fine.
func Do(ctx context.Context, tx Tx) (err error) {
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.Background())
		}
	}()
	return fetch(context.Background()) // want `cuts off ctx`
}
