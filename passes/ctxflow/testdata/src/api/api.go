package api

import (
	"context"
	"errors"
	"net/http"

	"store"
)

// Close calls a carrier from another package: the fact crosses the boundary.
func Close(s *store.Store) error { // want Close:"carriesCancel"
	return s.Flush()
}

func Check(s *store.Store) error { // want Check:"freshErrors"
	return s.Describe()
}

func Config(ctx context.Context) error { // want Config:"noCancel" Config:"freshErrors"
	_, err := store.ReadConfig(ctx, "x")
	return err
}

func Serial(ctx context.Context) error { // want Serial:"noCancel" Serial:"identityFree"
	_, err := store.Serial(ctx)
	return err
}

type record struct {
	n   int
	err error
}

func scan(ctx context.Context) func(yield func(int, error) bool) {
	return func(yield func(int, error) bool) { yield(0, ctx.Err()) }
}

func stream(ctx context.Context) <-chan record {
	ch := make(chan record, 1)
	ch <- record{err: ctx.Err()}
	return ch
}

var errEmpty = errors.New("empty")

// Sum gives its context to an iterator that yields errors: the iteration
// may end with the context's cancellation, so Sum is no NoCancel function.
func Sum(ctx context.Context) (int, error) { // want Sum:"freshErrors"
	total := 0
	for n, err := range scan(ctx) {
		if err != nil {
			return total, errEmpty
		}
		total += n
	}
	return total, nil
}

// Drain gives its context to a stream of results with errors.
func Drain(ctx context.Context) error { // want Drain:"freshErrors"
	for r := range stream(ctx) {
		if r.err != nil {
			return errEmpty
		}
	}
	return nil
}

// Fetch builds its request without a context (http.NewRequest's is
// Background): its error cannot carry a caller's cancellation, and it runs
// its request under no caller's context.
func Fetch(c *http.Client, url string) error { // want Fetch:"makesRoot\\(a request made without a context at api.go:78 via \\)"
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Forward hands on a request it was given: its context is the caller's,
// and Forward is context-bound at its call sites (it takes the request),
// so it needs no fact.
func Forward(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Parse builds a request field by field, as a server does: no outgoing
// request runs under a root here.
func Parse(method string, check func(*http.Request) error) error {
	req := new(http.Request)
	req.Method = method
	return check(req)
}

// audience returns a fresh error or none.
func audience(tok string) (bool, error) {
	if tok == "" {
		return false, errors.New("no audience")
	}
	return true, nil
}

// Verify returns errors it flattens and the one audience gives through a
// variable of an if statement: all fresh.
func Verify(ctx context.Context, s *store.Store, tok string) (string, error) { // want Verify:"freshErrors" Verify:"dropsCancel"
	if err := s.Flush(); err != nil {
		return "", errors.New("flush: " + err.Error())
	}
	if ok, err := audience(tok); !ok {
		return "", err
	}
	return tok, nil
}

// Near miss: the variable may hold the carrier's error.
func VerifyKeeps(ctx context.Context, s *store.Store, tok string) (string, error) { // want VerifyKeeps:"dropsCancel"
	err := s.Flush()
	if tok == "" {
		err = errors.New("no token")
	}
	return tok, err
}

// Near miss: the variable's address is taken; what is stored through it
// is not known.
func VerifyThrough(ctx context.Context, tok string, fill func(*error)) (string, error) { // want VerifyThrough:"dropsCancel"
	err := errors.New("unset")
	fill(&err)
	return tok, err
}

// Post binds its context to the request it sends: not a values-only use.
func Post(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return errors.New("bad url")
	}
	req = req.WithContext(ctx)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

type idKey struct{}

func WithID(ctx context.Context, id string) context.Context { // want WithID:"addsValues"
	return context.WithValue(ctx, idKey{}, id)
}

// WithTrace adds values through another such function.
func WithTrace(ctx context.Context, id string) context.Context { // want WithTrace:"addsValues"
	if id == "" {
		return ctx
	}
	return WithID(context.WithValue(ctx, idKey{}, "t"), id)
}

// Near miss: a deadline is more than a value.
func WithBudget(ctx context.Context) context.Context {
	ctx2, _ := context.WithTimeout(ctx, 0) //nolint
	return ctx2
}
