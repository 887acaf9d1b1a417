package swallow

import (
	"context"
	"database/sql"
)

// Task selects repositories to run against.
type Task struct {
	ID    string
	Repos []string
}

// Admitter turns tasks into runs.
type Admitter struct {
	db *sql.DB
}

// selectedRepos lists the repositories a task selects. If iteration stops
// early because the context was cancelled, Next returns false and the
// truncated list is returned as if complete.
// From: owainlewis/machinist#324
// bug: swallowcancel
func (a *Admitter) selectedRepos(ctx context.Context, taskID string) ([]string, error) {
	rows, err := a.db.QueryContext(ctx, "SELECT repo FROM task_repos WHERE task_id = $1", taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var repos []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		repos = append(repos, r)
	}
	return repos, nil
}

// selectedReposNearMiss checks rows.Err after the loop.
// ok: swallowcancel
func (a *Admitter) selectedReposNearMiss(ctx context.Context, taskID string) ([]string, error) {
	rows, err := a.db.QueryContext(ctx, "SELECT repo FROM task_repos WHERE task_id = $1", taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var repos []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		repos = append(repos, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return repos, nil
}

// Admit builds a task with its repositories.
// ok: swallowcancel
func (a *Admitter) Admit(ctx context.Context, taskID string) (Task, error) {
	repos, err := a.selectedReposNearMiss(ctx, taskID)
	if err != nil {
		return Task{}, err
	}
	return Task{ID: taskID, Repos: repos}, nil
}
