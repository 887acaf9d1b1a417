package a

import (
	"context"
	"net/http"
	"time"
)

// afterFunc is time.AfterFunc behind a variable that tests replace.
var afterFunc = time.AfterFunc

// Runs later, through the seam, detached.
func LaterSeam(ctx context.Context, s *Store) {
	afterFunc(time.Second, func() {
		_ = s.Save(context.Background(), "later")
	})
}

// runNow calls its argument at once; the package reassigns it, so what it
// holds is not known.
var runNow = func(f func()) { f() }

func init() { runNow = func(f func()) { f() } }

// Near-miss: the literal runs inside the call, while ctx is live.
func NowSeam(ctx context.Context, s *Store) {
	runNow(func() {
		_ = s.Save(context.Background(), "now") // want `context.Background\(\) in a function literal in NowSeam cuts off ctx`
	})
}

// addValues copies what the request context holds onto base.
func addValues(base, from context.Context) context.Context {
	return context.WithValue(base, ctxKey{}, from.Value(ctxKey{}))
}

type ctxKey struct{}

// The new root is built from ctx's values on purpose: the hand-made form
// of context.WithoutCancel.
func Transcode(ctx context.Context, s *Store, keep bool) error {
	tctx := ctx
	if !keep {
		tctx = addValues(context.Background(), ctx)
	}
	return s.Save(tctx, "out")
}

// Near-miss: the values come from another, detached context.
func TranscodeDetached(ctx context.Context, s *Store) error {
	tctx := addValues(context.Background(), context.TODO()) // want `context.Background\(\) in TranscodeDetached cuts off ctx` `context.TODO\(\) in TranscodeDetached cuts off ctx`
	return s.Save(tctx, "out")
}

func renderPage(ctx context.Context, w http.ResponseWriter, r *http.Request) {}

// Near-miss: the helper is given the request for other reasons; the fresh
// root cuts off r.Context().
func PageHandler(w http.ResponseWriter, r *http.Request) {
	renderPage(context.Background(), w, r) // want `context.Background\(\) in PageHandler cuts off r.Context\(\)`
}

// The fresh root held in a variable and rebased with ctx's values: the
// same hand-made WithoutCancel.
func TranscodeVar(ctx context.Context, s *Store) error {
	tctx := context.Background()
	tctx = addValues(tctx, ctx)
	return s.Save(tctx, "out")
}

// Near-miss: held in a variable and used as it is.
func TranscodeVarBare(ctx context.Context, s *Store) error {
	tctx := context.Background() // want `context.Background\(\) in TranscodeVarBare cuts off ctx`
	return s.Save(tctx, "out")
}
