package detached

import (
	"context"
	"database/sql"
)

type UserService struct {
	db *sql.DB
}

// An RPC method that takes a dedicated connection under Background.
//
// bug: detachedctx
func (s *UserService) Rename(ctx context.Context, id, name string) error {
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "UPDATE users SET name = $1 WHERE id = $2", name, id)
	return err
}

// ok: detachedctx
func (s *UserService) RenameOK(ctx context.Context, id, name string) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "UPDATE users SET name = $1 WHERE id = $2", name, id)
	return err
}
