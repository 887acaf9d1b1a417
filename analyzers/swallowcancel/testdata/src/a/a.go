package a

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
	"store"
)

var errs []error

func parse(s string) error { return nil }

// ---- drops ----

func dropAssign(ctx context.Context, k string) error {
	_ = store.Put(ctx, k, "v") // want `the error of store.Put may carry the caller's cancellation and is dropped, so dropAssign goes on`
	return nil
}

func dropTuple(ctx context.Context, k string) (string, error) {
	v, _ := store.Get(ctx, k) // want `the error of store.Get may carry the caller's cancellation and is dropped`
	return v, nil
}

func dropBare(ctx context.Context, k string) error {
	store.Put(ctx, k, "v") // want `the error of store.Put may carry`
	log.Printf("stored %s", k)
	return nil
}

func dropFact(c *store.Conn) error {
	c.Wait() // want `the error of c.Wait may carry`
	return nil
}

func dropInLoop(ctx context.Context, keys []string) error {
	for _, k := range keys {
		_ = store.Put(ctx, k, "v") // want `the error of store.Put may carry the cancellation of ctx and is dropped, so the loop over keys keeps calling it after ctx is canceled`
	}
	return nil
}

func dropBareInLoop(ctx context.Context, keys []string) int {
	n := 0
	for i := 0; i < len(keys); i++ {
		store.Put(ctx, keys[i], "v") // want `the loop keeps calling it`
		n++
	}
	return n
}

// NEGATIVES for drops.

func dropLast(ctx context.Context, k string) {
	store.Put(ctx, k, "v") // no error result, last statement: nothing to swallow
}

func noErrorResult(w http.ResponseWriter, r *http.Request) {
	_ = store.Put(r.Context(), "k", "v") // an http handler has no error to return
	w.WriteHeader(http.StatusOK)
}

func dropCleanup(ctx context.Context, c *store.Conn) error {
	_ = c.Close(ctx)
	return nil
}

func dropDetached(ctx context.Context, k string) error {
	_ = store.Put(context.WithoutCancel(ctx), k, "v")
	bg := context.Background()
	_ = store.Put(bg, k, "v")
	return nil
}

func dropNotBound(k string) error {
	_ = parse(k)
	return nil
}

func dropOnFailurePath(ctx context.Context, k string) error {
	if err := parse(k); err != nil {
		_ = store.Put(ctx, "failed", k)
		return fmt.Errorf("parse: %w", err)
	}
	return nil
}

func dropRetryLoop(ctx context.Context) {
	for {
		_ = store.Put(ctx, "k", "v") // retrycancel's
	}
}

func dropLoopChecksCtx(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		_ = store.Put(ctx, k, "v")
	}
	return nil
}

func dropInGoroutine(ctx context.Context) {
	go func() {
		_ = store.Put(ctx, "k", "v")
	}()
}

func dropDeferred(ctx context.Context) error {
	defer store.Put(ctx, "k", "v")
	return nil
}

// ---- turned into success ----

func nilOnError(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil { // want `err may carry the cancellation of ctx and this branch returns a nil error instead`
		return "", nil
	}
	return v, nil
}

func loggedThenNil(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and this branch returns a nil error`
		log.Printf("put %s: %v", k, err)
		return nil
	}
	return nil
}

func doneNil(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return nil // want `doneNil returns a nil error when ctx is done, so callers see success for work that was canceled`
	case v := <-ch:
		return parse(fmt.Sprint(v))
	}
}

func doneNilTuple(ctx context.Context, ch <-chan int) (int, error) {
	for {
		select {
		case <-ctx.Done():
			return 0, nil // want `doneNilTuple returns a nil error when ctx is done`
		case v := <-ch:
			if v > 0 {
				return v, nil
			}
		}
	}
}

func errNilCheck(ctx context.Context) error {
	if ctx.Err() != nil { // want `when ctx has ended this branch returns a nil error, so errNilCheck reports success`
		return nil
	}
	return store.Put(ctx, "k", "v")
}

func isCanceledNil(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error`
		return nil
	}
	return err
}

func eitherNil(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) { // want `when err is a cancellation`
		return nil
	}
	return err
}

func (s *server) literal(ctx context.Context) func() error {
	return func() error {
		select {
		case <-ctx.Done():
			return nil // want `function literal returns a nil error when ctx is done`
		default:
			return nil
		}
	}
}

// ---- logged and continued in a loop over a collection ----

func logAndContinue(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so the loop over keys goes on after cancellation`
			log.Printf("put %s: %v", k, err)
			continue
		}
	}
	return nil
}

// Nothing follows the loop and nothing is returned: no one is told the
// puts were done.
func logAndFallThrough(ctx context.Context, m map[string]string) {
	for k, v := range m {
		err := store.Put(ctx, k, v)
		if err != nil {
			log.Println(err)
		}
	}
}

// The loop is followed by the record that the puts were done.
func logAndMark(ctx context.Context, m map[string]string, done func()) {
	for k, v := range m {
		err := store.Put(ctx, k, v)
		if err != nil { // want `the loop over m goes on after cancellation`
			log.Println(err)
		}
	}
	done()
}

// NEGATIVES for success.

type server struct {
	ctx context.Context
}

func returned(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		log.Printf("put: %v", err)
		return err
	}
	return nil
}

func wrappedReturn(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return nil
}

func stored(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func sent(ctx context.Context, keys []string, out chan<- error) {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			out <- err
		}
	}
}

func notCarrier(k string) error {
	if err := parse(k); err != nil {
		return nil
	}
	return nil
}

func checkedFirst(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err != nil {
		return nil // other errors are tolerated
	}
	return nil
}

func checkedInside(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}
	return nil
}

func notCanceled(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func deadlineOnlyNil(ctx context.Context) error {
	if errors.Is(store.Put(ctx, "k", "v"), context.DeadlineExceeded) == false {
		return nil
	}
	return nil
}

func doneReturnsErr(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

func (s *server) fieldDone(ch <-chan int) error {
	select {
	case <-s.ctx.Done():
		return nil // the server's own lifetime ended: it is closed
	case <-ch:
		return nil
	}
}

// Run serves until ctx is canceled; it returns nil when ctx is canceled.
func Run(ctx context.Context, ch <-chan int) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		}
	}
}

// Serve accepts work. On shutdown it returns nil.
func (s *server) Serve(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Warm fills the cache on a best-effort basis.
func Warm(ctx context.Context, k string) error {
	if _, err := store.Get(ctx, k); err != nil {
		return nil
	}
	return nil
}

func group(ctx context.Context, ch <-chan int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
			return nil
		}
	})
	return g.Wait()
}

func noErrResultDone(ctx context.Context, ch <-chan int) {
	select {
	case <-ctx.Done():
		return
	case <-ch:
	}
}

func handlerLoop(w http.ResponseWriter, r *http.Request) {
	if err := store.Put(r.Context(), "k", "v"); err != nil {
		log.Printf("client left: %v", err)
		return
	}
}

func detachedDone(ch <-chan int) error {
	ctx := context.Background()
	select {
	case <-ctx.Done():
		return nil
	case <-ch:
		return nil
	}
}

func breakOut(ctx context.Context, keys []string) error {
	var last error
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and this branch leaves the loop for a return of a nil error, so breakOut reports success for work that was cut short`
			log.Print(err)
			break
		}
	}
	return last // never assigned: nil on every path
}

func retryLoopLogged(ctx context.Context) {
	for attempt := 0; attempt < 3; attempt++ {
		if err := store.Put(ctx, "k", "v"); err != nil {
			log.Print(err) // retrycancel's
		}
	}
}

func loopWithSelect(ctx context.Context, keys []string) {
	for _, k := range keys {
		select {
		case <-ctx.Done():
			return
		default:
		}
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Print(err)
		}
	}
}

func ignored(ctx context.Context) error {
	//cancelcheck:ignore swallowcancel the audit write is optional
	_ = store.Put(ctx, "audit", "v")
	return nil
}

// ---- logged and dropped outside loops ----

func loggedFallThrough(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so loggedFallThrough goes on and returns success`
		log.Printf("put %s: %v", k, err)
	}
	return nil
}

func loggedThenMoreWork(ctx context.Context, k string) error {
	if err := store.Put(ctx, "cache:"+k, "v"); err != nil {
		log.Printf("cache: %v", err) // best effort; the next call reports cancellation
	}
	return store.Put(ctx, k, "v")
}

func loggedThenError(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		log.Printf("put: %v", err)
	}
	return errors.New("not implemented")
}

func dropThenMoreWork(ctx context.Context, k string) (string, error) {
	_ = store.Put(ctx, "audit", k)
	return store.Get(ctx, k)
}

func dropThenCtxCheck(ctx context.Context, k string) error {
	_ = store.Put(ctx, "audit", k)
	return ctx.Err()
}

// ---- skipping canceled items ----

func skipCanceled(ctx context.Context, keys []string) error {
	for _, k := range keys {
		err := store.Put(ctx, k, "v")
		if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch skips to the next item, so the loop over keys goes on`
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func skipOtherErrors(ctx context.Context, keys []string) error {
	for _, k := range keys {
		err := store.Put(ctx, k, "v")
		if errors.Is(err, context.Canceled) {
			return err
		}
		if err != nil {
			continue // other errors are tolerated per item
		}
	}
	return nil
}

type watcher struct{ ch chan int }

// Watch blocks until the context is canceled, handling events.
func (w *watcher) Watch(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.ch:
		}
	}
}

// Poll handles events.
func (w *watcher) Poll(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil // want `Poll returns a nil error when ctx is done`
		case <-w.ch:
		}
	}
}

func shutdownAll(ctx context.Context, conns []*store.Conn) {
	for _, c := range conns {
		if err := c.Close(ctx); err != nil {
			log.Printf("close: %v", err)
		}
	}
}

func reportedAfterLoop(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			log.Printf("put %s: %v", k, err)
		}
	}
	return ctx.Err()
}

func fallbackBranch(ctx context.Context, k string) error {
	if _, err := store.Get(ctx, k); err != nil {
		created = true // not found: fall back to a default
	}
	return nil
}

var created bool

func fallbackInLoop(ctx context.Context, keys []string) {
	for _, k := range keys {
		if _, err := store.Get(ctx, k); err != nil {
			created = true
		}
	}
}

func countedInLoop(ctx context.Context, keys []string) (failed int) {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil { // want `only skipped, so the loop over keys goes on`
			failed++
		}
	}
	return failed
}

func valuesOnly(ctx context.Context, keys []string) []string {
	var out []string
	for _, k := range keys {
		v, _ := store.Lookup(ctx, k) // Lookup cannot observe cancellation
		out = append(out, v)
	}
	return out
}

func skipped(ctx context.Context, ids []string) []string {
	var ok []string
	for _, id := range ids {
		if _, err := store.Get(ctx, id); err != nil { // want `err may carry the cancellation of ctx and is only skipped`
			continue
		}
		ok = append(ok, id)
	}
	return ok
}

func breakOutNil(ctx context.Context, msgs <-chan string) error {
	n := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop // want `when ctx is done this leaves the loop for a return of a nil error, so breakOutNil reports success`
		case m, ok := <-msgs:
			if !ok {
				break loop
			}
			n += len(m)
		}
	}
	log.Printf("read %d bytes", n)
	return nil
}

func breakOutChecked(ctx context.Context, msgs <-chan string) error {
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-msgs:
		}
	}
	return ctx.Err()
}

func breakOutFlush(ctx context.Context, msgs <-chan string) error {
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-msgs:
		}
	}
	return store.Put(context.WithoutCancel(ctx), "flush", "v")
}

type pool struct{ sem *semaphore.Weighted }

func (p *pool) handle(ctx context.Context, job string) {
	p.sem.Acquire(ctx, 1) // want `the error of p.sem.Acquire may carry the cancellation of ctx and is dropped, so handle goes on as if the call succeeded`
	defer p.sem.Release(1)
	log.Println(job)
}

func (p *pool) handleChecked(ctx context.Context, job string) {
	if err := p.sem.Acquire(ctx, 1); err != nil {
		return
	}
	defer p.sem.Release(1)
	log.Println(job)
}

func (p *pool) handleExplicit(ctx context.Context, job string) {
	_ = p.sem.Acquire(ctx, 1) // explicit: a decision, not reported without an error result
	log.Println(job)
}

func clearsErr(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch sets it to nil, so clearsErr reports success`
		err = nil
	}
	return err
}

// Stop stops the worker; it returns nil when it was stopped by cancellation.
func Stop(ctx context.Context) error {
	err := store.Put(ctx, "stop", "v")
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

func clearsOther(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, errNotFound) {
		err = nil
	}
	return err
}

var errNotFound = errors.New("not found")

func bestEffortAfterWork(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		return err
	}
	_ = store.Put(ctx, "cache:"+k, "") // invalidation after the write succeeded
	return nil
}

// ---- logged through a printf-shaped function value ----

type compactor struct {
	logf   func(format string, args ...any)
	report func(format string, args ...any) error
}

func (c *compactor) logFieldAndContinue(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and is only logged, so the loop over keys goes on after cancellation`
			c.logf("put %s: %v", k, err)
			continue
		}
	}
	return nil
}

// A function value that returns something is not a log: its result may
// carry the error on.
func (c *compactor) reportFieldAndContinue(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil {
			if rerr := c.report("put %s: %v", k, err); rerr != nil {
				return rerr
			}
			continue
		}
	}
	return nil
}

// groupCollect returns what its producer sent: on the caller's
// cancellation the producer returns nil, Wait returns nil, and a truncated
// count is returned as complete.
func groupCollect(ctx context.Context, in <-chan int) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	vals := make(chan int)
	g.Go(func() error {
		defer close(vals)
		for v := range in {
			select {
			case vals <- v:
			case <-gctx.Done():
				return nil // want `function literal returns a nil error when gctx is done, so callers see success for work that was canceled`
			}
		}
		return nil
	})
	n := 0
	g.Go(func() error {
		for range vals {
			n++
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return n, err
	}
	return n, nil
}

// groupCollectChecked tests the context after Wait: the cancellation is
// reported there.
func groupCollectChecked(ctx context.Context, in <-chan int) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	n := 0
	g.Go(func() error {
		for v := range in {
			select {
			case <-gctx.Done():
				return nil
			default:
				n += v
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return n, err
	}
	return n, ctx.Err()
}

// ---- a retry loop that may make no attempt ----

type retrier struct {
	ctx context.Context
	n   int
}

func (r *retrier) Next() bool {
	if r.ctx.Err() != nil {
		return false
	}
	r.n++
	return r.n <= 3
}

func applyRetried(ctx context.Context, k string) error {
	var lastErr error
	for r := (&retrier{ctx: ctx}); r.Next(); {
		if lastErr = store.Put(ctx, k, "v"); lastErr == nil {
			return nil
		}
	}
	return lastErr // want `when the context has ended before the first attempt the loop condition is false at once and lastErr is still nil, so applyRetried returns success for work that never ran`
}

func applyCounted(ctx context.Context, k string) error {
	var lastErr error
	for i := 0; i < 3 && ctx.Err() == nil; i++ {
		if lastErr = store.Put(ctx, k, "v"); lastErr == nil {
			return nil
		}
	}
	return lastErr // want `lastErr is still nil, so applyCounted returns success`
}

// applyPreset starts from an error that says no attempt was made.
func applyPreset(ctx context.Context, k string) error {
	lastErr := errBatch
	for i := 0; i < 3 && ctx.Err() == nil; i++ {
		if lastErr = store.Put(ctx, k, "v"); lastErr == nil {
			return nil
		}
	}
	return lastErr
}

// applyReported reports the context's end when no attempt was made.
func applyReported(ctx context.Context, k string) error {
	var lastErr error
	for i := 0; i < 3 && ctx.Err() == nil; i++ {
		if lastErr = store.Put(ctx, k, "v"); lastErr == nil {
			return nil
		}
	}
	if lastErr == nil {
		return ctx.Err()
	}
	return lastErr
}

// applyUnbounded's condition does not look at the context.
func applyUnbounded(ctx context.Context, k string, tries int) error {
	var lastErr error
	for i := 0; i < tries; i++ {
		if lastErr = store.Put(ctx, k, "v"); lastErr == nil {
			return nil
		}
	}
	return lastErr
}

// loggedThenReturned logs a failed pull and a failed run, and returns the
// run's error after the block: logged, not only logged.
func loggedThenReturned(ctx context.Context, k string, retry bool) error {
	var err error
	if retry {
		err = store.Put(ctx, k, "v")
		if err != nil {
			log.Printf("put %s: %v", k, err)
		}
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", k, err)
	}
	return nil
}

// loggedThenOverwritten logs the error, and the variable is overwritten
// by a call that cannot fail with it before anyone looks again.
func loggedThenOverwritten(ctx context.Context, k string) error {
	var err error
	err = store.Put(ctx, k, "v")
	if err != nil { // want `err may carry the cancellation of ctx and is only logged, so loggedThenOverwritten goes on and returns success`
		log.Printf("put %s: %v", k, err)
	}
	err = parse(k)
	if err != nil {
		return err
	}
	return nil
}
