package detached

import (
	"context"
	"fmt"
	"strings"
)

// QueryResponse is the first page of a REST query.
type QueryResponse struct {
	ID      string
	Schema  []string
	Data    [][]string
	NextURI string
}

// apiClient is the HTTP client of the warehouse REST API.
type apiClient interface {
	StartQuery(ctx context.Context, sql string) (*QueryResponse, error)
	PollQuery(ctx context.Context, nextURI string) (*QueryResponse, error)
}

// restRows iterates over pages of a query result.
type restRows struct {
	client apiClient
	ctx    context.Context
	page   *QueryResponse
}

// buildQuery substitutes positional args into sql.
//
// ok: detachedctx
func buildQuery(sql string, args []any) (string, error) {
	if strings.Count(sql, "?") != len(args) {
		return "", fmt.Errorf("query has %d placeholders, got %d args", strings.Count(sql, "?"), len(args))
	}
	for _, a := range args {
		sql = strings.Replace(sql, "?", fmt.Sprintf("'%v'", a), 1)
	}
	return sql, nil
}

// restConn is one logical connection; ctx is the context it was opened
// with.
type restConn struct {
	ctx    context.Context
	client apiClient
}

// QueryContext runs query and returns its rows.
//
// From: databendlabs/databend-go#76
// bug: detachedctx
func (c *restConn) QueryContext(ctx context.Context, query string, args []any) (*restRows, error) {
	q, err := buildQuery(query, args)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.StartQuery(c.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("start query: %w", err)
	}
	return &restRows{client: c.client, ctx: ctx, page: resp}, nil
}

// restConnNearMiss is restConn whose QueryContext uses the query's context.
type restConnNearMiss struct {
	ctx    context.Context
	client apiClient
}

// QueryContext runs query and returns its rows.
//
// ok: detachedctx
func (c *restConnNearMiss) QueryContext(ctx context.Context, query string, args []any) (*restRows, error) {
	q, err := buildQuery(query, args)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.StartQuery(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("start query: %w", err)
	}
	return &restRows{client: c.client, ctx: ctx, page: resp}, nil
}
