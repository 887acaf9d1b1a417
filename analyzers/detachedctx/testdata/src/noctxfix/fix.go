package noctxfix

import (
	"context"
	"database/sql"
	"net/http"
	"os/exec"
)

func build(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequest(http.MethodGet, url, nil) // want `takes no context`
}

func query(ctx context.Context, db *sql.DB, id int) (*sql.Rows, error) {
	return db.Query("SELECT 1 WHERE ? = ?", id, id) // want `takes no context`
}

func begin(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.Begin() // want `takes no context`
}

func run(r *http.Request, dir string) ([]byte, error) {
	return exec.Command("git", "-C", dir, "status").Output() // want `takes no context`
}
