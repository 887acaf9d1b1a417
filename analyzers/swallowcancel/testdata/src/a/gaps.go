package a

import (
	"context"
	"errors"
	"iter"
	"log"
	"time"

	"golang.org/x/sync/errgroup"
	"store"
)

var errMissing = errors.New("missing")

// ---- a switch case that maps cancellation to success ----

// A lookup that treats "not there" and "canceled" alike.
func lookupCase(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, errMissing), errors.Is(err, context.Canceled): // want `when err is a cancellation this branch returns a nil error, so lookupCase reports success`
		return "", nil
	default:
		return "", err
	}
}

// A tagged switch on the error.
func lookupTagged(ctx context.Context, k string) error {
	_, err := store.Get(ctx, k)
	switch err {
	case nil:
		return nil
	case context.Canceled: // want `when err is a cancellation this branch returns a nil error, so lookupTagged reports success`
		return nil
	}
	return err
}

// Near-miss: the cancellation case returns the error.
func lookupCaseReturns(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	switch {
	case errors.Is(err, errMissing):
		return "", nil
	case errors.Is(err, context.Canceled):
		return "", err
	}
	return v, err
}

// Near-miss: only "missing" maps to nil.
func lookupCaseMissing(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	switch {
	case errors.Is(err, errMissing):
		return "", nil
	case err != nil:
		return "", err
	}
	return v, nil
}

// Near-miss: the contract says it returns nil when ctx is canceled.
//
// syncCase returns nil when ctx is canceled.
func syncCase(ctx context.Context, k string) error {
	err := store.Put(ctx, k, "v")
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	}
	return err
}

// ---- the error of a group's Wait ----

// The group's error is only logged and the function reports success.
func putAllGroup(ctx context.Context, ks []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, k := range ks {
		g.Go(func() error { return store.Put(gctx, k, "v") })
	}
	if err := g.Wait(); err != nil { // want `err may carry the cancellation of ctx and is only logged, so putAllGroup goes on and returns success`
		log.Printf("put all: %v", err)
	}
	return nil
}

// The group's Wait is called for its side effect alone.
func putAllGroupDrop(ctx context.Context, ks []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, k := range ks {
		g.Go(func() error { return store.Put(gctx, k, "v") })
	}
	g.Wait() // want `the error of g.Wait may carry the caller's cancellation and is dropped`
	log.Printf("done")
	return nil
}

// Near-miss: the group's error is returned.
func putAllGroupOK(ctx context.Context, ks []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, k := range ks {
		g.Go(func() error { return store.Put(gctx, k, "v") })
	}
	return g.Wait()
}

// A literal's error goes to the group's Wait, whose result is returned:
// dropping a cancellation inside the literal makes the group succeed.
func putAllDropInside(ctx context.Context, ks []string) error {
	var g errgroup.Group
	for _, k := range ks {
		g.Go(func() error {
			store.Put(ctx, k, "v") // want `the error of store.Put may carry the caller's cancellation and is dropped`
			return nil
		})
	}
	return g.Wait()
}

// Near-miss: no one reads the group's errors (its Wait is deferred for
// the join alone), so a drop inside a literal misleads no caller, as in a
// go statement.
func auditDeferred(ctx context.Context, ks []string) error {
	var g errgroup.Group
	defer g.Wait()
	for _, k := range ks {
		g.Go(func() error {
			store.Put(ctx, k, "v")
			return nil
		})
	}
	return nil
}

// Near-miss: a zero group has no context; its error is the goroutines'
// own, here parse errors.
func parseAllGroup(ss []string) error {
	var g errgroup.Group
	for _, s := range ss {
		g.Go(func() error { return parse(s) })
	}
	if err := g.Wait(); err != nil {
		log.Printf("parse: %v", err)
	}
	return nil
}

// Near-miss: a group under a detached context cannot be canceled from
// outside.
func warmGroup(ks []string) error {
	g, gctx := errgroup.WithContext(context.Background())
	for _, k := range ks {
		g.Go(func() error { return store.Put(gctx, k, "v") })
	}
	if err := g.Wait(); err != nil {
		log.Printf("warm: %v", err)
	}
	return nil
}

// ---- a stream read by a function with nothing to return ----

// Near-miss: a goroutine forwarding a stream logs each failure; it has no
// error to return and the stream ends when its sender closes it.
func forward(ctx context.Context, in <-chan string) {
	go func() {
		for k := range in {
			if err := store.Put(ctx, k, "v"); err != nil {
				log.Printf("forward %s: %v", k, err)
			}
		}
	}()
}

// A stream drained by a function that returns an error: the cancellation is
// lost.
func drain(ctx context.Context, in <-chan string) error {
	for k := range in {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so the loop over in goes on after cancellation`
			log.Printf("drain %s: %v", k, err)
		}
	}
	return nil
}

// A goroutine with nothing to return walking a slice, with nothing after
// the loop: no one is told the puts were done.
func putAllAsync(ctx context.Context, ks []string) {
	go func() {
		for _, k := range ks {
			if err := store.Put(ctx, k, "v"); err != nil {
				log.Printf("put %s: %v", k, err)
			}
		}
	}()
}

// ---- retry loops belong to retrycancel ----

func ctxDone(ctx context.Context) bool { return ctx.Err() != nil }

// Near-miss: a retry loop dropping its error (retrycancel's).
func resend(ctx context.Context, k string) {
	for {
		if ctxDone(ctx) {
			return
		}
		_ = store.Put(ctx, k, "v")
	}
}

// Near-miss: a retry loop logging its error (retrycancel's).
func resendLog(ctx context.Context, k string) error {
	for {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("put: %v", err)
			continue
		}
		return nil
	}
}

// ---- bare returns with a named error result ----

// A named result left nil by a bare return.
func getNamed(ctx context.Context, k string) (v string, err error) {
	v, err = store.Get(ctx, k)
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error, so getNamed reports success`
		err = nil
		return
	}
	return
}

// A bare return after the carrier was logged.
func putNamed(ctx context.Context, k string) (err error) {
	if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so putNamed goes on and returns success`
		log.Printf("put: %v", err)
	}
	return
}

// Near-miss: the bare return returns the named error as assigned.
func getNamedOK(ctx context.Context, k string) (v string, err error) {
	v, err = store.Get(ctx, k)
	if err != nil {
		log.Printf("get: %v", err)
		return
	}
	return
}

func listKeys(ctx context.Context) ([]string, error) { return nil, ctx.Err() }

// Near-miss: a collection loop inside a retry loop that never tests its
// context: retrycancel reports the outer loop.
func resyncForever(ctx context.Context) {
	for {
		ks, err := listKeys(ctx)
		if err != nil {
			continue
		}
		for _, k := range ks {
			if err := store.Put(ctx, k, "v"); err != nil {
				log.Printf("put %s: %v", k, err)
			}
		}
	}
}

// The outer loop stops on cancellation: every path from the inner loop's
// end passes its select on ctx.Done() before it can return, so the
// cancellation is seen, late by the rest of the keys, and nothing is
// reported as done (issue 15: bounded churn is not a swallow).
func resyncUntilDone(ctx context.Context, tick <-chan int) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		ks, _ := listKeys(ctx)
		for _, k := range ks {
			if err := store.Put(ctx, k, "v"); err != nil {
				log.Printf("put %s: %v", k, err)
			}
		}
	}
}

// resyncEveryTick's outer loop never looks at ctx: after cancellation every
// round fails once per key, forever.
func resyncEveryTick(ctx context.Context, tick <-chan int) {
	for range tick {
		ks, _ := listKeys(ctx)
		for _, k := range ks {
			if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so the loop over ks goes on`
				log.Printf("put %s: %v", k, err)
			}
		}
	}
}

// resyncSome tests the context after the loop on one path only: on the
// other the cancellation is lost.
func resyncSome(ctx context.Context, ks []string, verify bool) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so the loop over ks goes on`
			log.Printf("put %s: %v", k, err)
		}
	}
	if verify {
		return ctx.Err()
	}
	return nil
}

// resyncChecked tests the context on every path after the loop.
func resyncChecked(ctx context.Context, ks []string) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("put %s: %v", k, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// walkFiles yields each path under roots, or the context's error once it
// ends (and then stops).
func walkFiles(ctx context.Context, roots []string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, r := range roots {
			if err := ctx.Err(); err != nil {
				yield(r, err)
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// indexAll logs every error the walk yields, the cancellation included, and
// returns the partial count as a success.
func indexAll(ctx context.Context, roots []string, index func(string) error) (int, error) {
	n := 0
	for p, err := range walkFiles(ctx, roots) {
		if err != nil { // want `err, yielded by walkFiles\(ctx, roots\), may carry the cancellation of ctx and is only logged, so indexAll returns as if the iteration had finished after it is canceled`
			log.Printf("skipping %s: %v", p, err)
			continue
		}
		if index(p) == nil {
			n++
		}
	}
	return n, nil
}

// indexAllStopped ends with the walk's cancellation.
func indexAllStopped(ctx context.Context, roots []string, index func(string) error) (int, error) {
	n := 0
	for p, err := range walkFiles(ctx, roots) {
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return n, err
			}
			log.Printf("skipping %s: %v", p, err)
			continue
		}
		if index(p) == nil {
			n++
		}
	}
	return n, nil
}

// indexAllChecked reports the cancellation after the walk.
func indexAllChecked(ctx context.Context, roots []string, index func(string) error) (int, error) {
	n := 0
	for p, err := range walkFiles(ctx, roots) {
		if err != nil {
			log.Printf("skipping %s: %v", p, err)
			continue
		}
		if index(p) == nil {
			n++
		}
	}
	return n, ctx.Err()
}

// indexDetached walks with a context that cannot end: no error it yields
// is a cancellation.
func indexDetached(roots []string) (int, error) {
	n := 0
	for p, err := range walkFiles(context.Background(), roots) {
		if err != nil {
			log.Printf("skipping %s: %v", p, err)
			continue
		}
		n++
	}
	return n, nil
}

// indexLogged has no error to return: logging each failure is all it can do.
func indexLogged(ctx context.Context, roots []string) {
	for p, err := range walkFiles(ctx, roots) {
		if err != nil {
			log.Printf("skipping %s: %v", p, err)
			continue
		}
		log.Print(p)
	}
}

// ownTimeout runs its work under a deadline of its own: its error can be
// that timeout, never its callers' cancellation.
func ownTimeout(k string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return store.Put(ctx, k, "v")
}

// dropsOwnTimeout drops an error that cannot be ctx's cancellation: ctx
// never reaches ownTimeout.
func dropsOwnTimeout(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		_ = ownTimeout(k)
		n++
	}
	return n, store.Put(ctx, "count", "n")
}

// dropsBound drops an error that can be ctx's cancellation.
func dropsBound(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		_ = store.Put(ctx, k, "v") // want `may carry the cancellation of ctx`
		n++
	}
	return n, nil
}

// withDeadline runs fn, giving up when ctx ends: its second result is
// whatever fn returned.
func withDeadline[T1, T2 any](ctx context.Context, fn func() (T1, T2)) (T1, T2, error) {
	type res struct {
		a T1
		b T2
	}
	ch := make(chan res, 1)
	go func() {
		a, b := fn()
		ch <- res{a, b}
	}()
	select {
	case <-ctx.Done():
		var a T1
		var b T2
		return a, b, ctx.Err()
	case r := <-ch:
		return r.a, r.b, nil
	}
}

type reader interface{ Read(p []byte) (int, error) }

// readN's read error is the literal's, which does no context-bound work:
// filtering Canceled out of it loses nothing.
func readN(ctx context.Context, r reader, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, rerr, err := withDeadline(ctx, func() (int, error) { return r.Read(buf) })
	if err != nil {
		return nil, err
	}
	if rerr != nil && !errors.Is(rerr, context.Canceled) {
		return buf[:got], rerr
	}
	return buf[:got], nil
}

// putN's literal runs context-bound work: its error may be the
// cancellation, and the filter lets it past.
func putN(ctx context.Context, k string) (int, error) {
	got, perr, err := withDeadline(ctx, func() (int, error) { return 1, store.Put(ctx, k, "v") })
	if err != nil {
		return 0, err
	}
	if perr != nil && !errors.Is(perr, context.Canceled) { // want `when perr is a cancellation this test lets it past the failure branch`
		return 0, perr
	}
	return got, nil
}

// lint names its context _: it cannot see the context's end, so its error
// is never the cancellation.
func lint(_ context.Context, v validator, k string) error {
	if k == "" {
		return errors.New("empty")
	}
	return v.Validate(k)
}

type validator interface{ Validate(k string) error }

// lintAll logs each failure and goes on: none of them can be the
// cancellation, here or across packages.
func lintAll(ctx context.Context, v validator, ks []string) error {
	for _, k := range ks {
		if err := lint(ctx, v, k); err != nil {
			log.Printf("lint %s: %v", k, err)
		}
		if err := store.Validate(ctx, k); err != nil {
			log.Printf("validate %s: %v", k, err)
		}
	}
	return nil
}

// lintNamed's callee uses its context: its failures may be the
// cancellation.
func lintNamed(ctx context.Context, ks []string) error {
	for _, k := range ks {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("put %s: %v", k, err)
		}
	}
	return nil
}

// waitIndexed waits for the index to reach want; err, past its failure
// test, holds nothing (codenotary/immudb#2049).
func waitIndexed(ctx context.Context, last func() (uint64, error), want uint64, wake <-chan struct{}) (uint64, error) {
	for {
		n, err := last()
		if err != nil {
			return 0, err
		}
		if n >= want {
			return n, nil
		}
		if ctx.Err() != nil { // want `when ctx has ended this branch returns a nil error, so waitIndexed reports success`
			return n, err
		}
		select {
		case <-ctx.Done():
		case <-wake:
		}
	}
}

// Near miss: the shutdown answer is a package sentinel (declared after
// the function), not nil.
type execQueue struct{ ctx context.Context }

func (q *execQueue) runSync(ctx context.Context, done <-chan struct{}) error {
	shutdownCtx := q.ctx
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-shutdownCtx.Done():
		return errQueueShutdown
	}
}

var errQueueShutdown = errors.New("queue shut down")

// shipAll uploads every pending block. shipAll returns nil and the
// caller exits as if everything shipped.
func shipAll(ctx context.Context, blocks []string, upload func(context.Context, string) error) error {
	for _, b := range blocks {
		if err := upload(ctx, b); err != nil { // want `err may carry the cancellation of ctx and is only logged`
			log.Printf("upload %s: %v", b, err)
			continue
		}
	}
	return nil
}

// flushUntilStopped uploads every pending block. It returns nil when ctx
// is canceled: a stop is not a failure.
func flushUntilStopped(ctx context.Context, blocks []string, upload func(context.Context, string) error) error {
	for _, b := range blocks {
		if err := upload(ctx, b); err != nil {
			log.Printf("upload %s: %v", b, err)
			continue
		}
	}
	return nil
}
