package fix

import (
	"context"
	"errors"
	"strings"
)

type shard interface {
	Query(ctx context.Context) ([]string, error)
}

// queryErrors collects shard failures for display.
type queryErrors []error

func (m queryErrors) Error() string {
	parts := make([]string, len(m))
	for i, err := range m {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func queryAll(ctx context.Context, shards []shard) ([]string, error) {
	var out []string
	var errs queryErrors
	for _, s := range shards {
		rows, err := s.Query(ctx)
		if err != nil {
			errs = append(errs, err) // want `queryErrors collects err, which may carry cancellation, but has no Unwrap method`
			continue
		}
		out = append(out, rows...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// Near miss: errors.Join keeps every error visible.
func queryAllJoined(ctx context.Context, shards []shard) ([]string, error) {
	var out []string
	var errs []error
	for _, s := range shards {
		rows, err := s.Query(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rows...)
	}
	return out, errors.Join(errs...)
}

// Near miss: collected only to be logged, never returned.
func queryLogged(ctx context.Context, shards []shard, log func(string)) []string {
	var out []string
	var errs queryErrors
	for _, s := range shards {
		rows, err := s.Query(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rows...)
	}
	if len(errs) > 0 {
		log(errs.Error())
	}
	return out
}

type unwrapped []error

func (m unwrapped) Error() string   { return "many" }
func (m unwrapped) Unwrap() []error { return m }

// Near miss: a collection with Unwrap() []error.
func queryUnwrapped(ctx context.Context, shards []shard) error {
	var errs unwrapped
	for _, s := range shards {
		if _, err := s.Query(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
