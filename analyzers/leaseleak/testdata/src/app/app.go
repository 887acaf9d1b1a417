package app

import (
	"context"
	"errors"
	"net/http"

	"lib"
)

func work(ctx context.Context) error { return nil }

// A wrapper's cancel function is a lease too.
func budget(ctx context.Context) error {
	ctx, cancel := lib.WithBudget(ctx) // want `the cancel function of lib.WithBudget is not called on the path through the return when ctx.Err\(\) != nil`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	defer cancel()
	return work(ctx)
}

// A wrapper's file too.
func config(dir string) (int, error) {
	f, err := lib.OpenConfig(dir) // want `the file f from lib.OpenConfig is not closed on the path through the return`
	if err != nil {
		return 0, err
	}
	return lib.Count(f), nil
}

// And a wrapper's response.
func status(url string) (int, error) {
	resp, err := lib.Fetch(url) // want `the response body resp.Body from lib.Fetch is not closed on the path through the return when resp.StatusCode != http.StatusOK`
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, errors.New(resp.Status)
	}
	lib.Drain(resp)
	return resp.StatusCode, nil
}

// ---- near misses ----

// Drain releases its parameter (a fact from package lib).
func drained(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	lib.Drain(resp)
	return nil
}

// CloseAll releases its variadic parameter.
func closedAll(dir string) error {
	f, err := lib.OpenConfig(dir)
	if err != nil {
		return err
	}
	g, err := lib.OpenConfig(dir + "/b")
	if err != nil {
		f.Close()
		return err
	}
	lib.CloseAll(f, g)
	return nil
}

// The pool owns what it opens.
func pooled(p *lib.Pool) error {
	f, err := p.Open("x")
	if err != nil {
		return err
	}
	_ = lib.Count(f)
	return nil
}

func budgeted(ctx context.Context) error {
	ctx, cancel := lib.WithBudget(ctx)
	defer cancel()
	return work(ctx)
}
