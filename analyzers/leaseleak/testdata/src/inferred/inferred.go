// Package inferred holds values no table knows as leases, released by the
// function on some paths only.
package inferred

import (
	"bytes"
	"context"
	"errors"
)

type Span struct{}

func (*Span) End()              {}
func (*Span) RecordError(error) {}

type Tracer struct{}

func (Tracer) Start(ctx context.Context, name string) (context.Context, *Span) { return ctx, &Span{} }

type Session struct{}

func (*Session) Close()                  {}
func (*Session) Send(string) error       { return nil }
func Dial(addr string) (*Session, error) { return &Session{}, nil }

func collect(ctx context.Context) error { return ctx.Err() }

// The span is ended on success only.
func scan(ctx context.Context, t Tracer) error {
	ctx, span := t.Start(ctx, "scan") // want `the inferred.Span span from \(inferred.Tracer\).Start is not ended on the path through the return`
	if err := collect(ctx); err != nil {
		span.RecordError(err)
		return err
	}
	span.End()
	return nil
}

// Near-miss: ended on every path.
func scanDeferred(ctx context.Context, t Tracer) error {
	ctx, span := t.Start(ctx, "scan")
	defer span.End()
	return collect(ctx)
}

var errRefused = errors.New("refused")

// The session is closed when Send fails, not when the peer refuses.
func greet(addr string, refuse bool) error {
	s, err := Dial(addr) // want `the inferred.Session s from inferred.Dial is not closed on the path through the return`
	if err != nil {
		return err
	}
	if refuse {
		return errRefused
	}
	if err := s.Send("hello"); err != nil {
		s.Close()
		return err
	}
	s.Close()
	return nil
}

// Near-miss: never released here at all: not inferred (it may not be this
// function's to release).
func borrow(addr string) error {
	s, err := Dial(addr)
	if err != nil {
		return err
	}
	return s.Send("hello")
}

// Near-miss: handed to the caller on the other path.
func open(addr string, keep bool) (*Session, error) {
	s, err := Dial(addr)
	if err != nil {
		return nil, err
	}
	if !keep {
		s.Close()
		return nil, nil
	}
	return s, nil
}

type Tx struct{ s *Session }

func (s *Session) Begin() (*Tx, error) { return &Tx{s}, nil }

// Near-miss: on success the transaction owns the session.
func begin(addr string) (*Tx, error) {
	s, err := Dial(addr)
	if err != nil {
		return nil, err
	}
	tx, err := s.Begin()
	if err != nil {
		s.Close()
		return nil, err
	}
	return tx, nil
}

type Writer struct{}

func (*Writer) Write(p []byte) (int, error) { return len(p), nil }
func (*Writer) Close() error                { return nil }

func NewWriter(w interface{ Write([]byte) (int, error) }) *Writer { return &Writer{} }

type buffer struct{ b []byte }

func (b *buffer) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }

// Near-miss: a writer into memory holds nothing; its Close finishes the
// stream.
func compress(data []byte, fail bool) ([]byte, error) {
	var out bytes.Buffer
	w := NewWriter(&out)
	if fail {
		return nil, errRefused
	}
	w.Close()
	return out.Bytes(), nil
}

// Near-miss: a borrowed span, replaced by one the function starts and ends.
func spanFrom(ctx context.Context, t Tracer, trace bool) error {
	span := SpanFrom(ctx)
	if !trace || span != nil {
		return collect(ctx)
	}
	ctx, span = t.Start(ctx, "op")
	defer span.End()
	return collect(ctx)
}

func SpanFrom(ctx context.Context) *Span { return nil }

type chunked struct{ w interface{ Write([]byte) (int, error) } }

func (c *chunked) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *chunked) Close() error                { return nil }

func newChunked(w interface{ Write([]byte) (int, error) }) *chunked { return &chunked{w} }

type sink interface{ Write([]byte) (int, error) }

// Near-miss: a writer that finishes a stream another value owns.
func writeBody(w sink, body []byte) error {
	cw := newChunked(w)
	if _, err := cw.Write(body); err != nil {
		return err
	}
	return cw.Close()
}
