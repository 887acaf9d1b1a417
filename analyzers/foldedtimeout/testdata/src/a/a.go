package a

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"status"
	"store"
)

var (
	ErrTimeout  = errors.New("operation timed out")
	ErrStopped  = errors.New("worker stopped")
	ErrSlow     = errors.New("took too long") // message says nothing; name neither
	ErrDeadline = errors.New("deadline reached")
)

type result struct{ v int }

// ---- %v / %s / %q ----

func wrapV(ctx context.Context, k string) error {
	if err := store.Put(ctx, k, "v"); err != nil {
		return fmt.Errorf("put %s: %v", k, err) // want `fmt.Errorf formats err with %v, so the cancellation it may carry is lost`
	}
	return nil
}

func wrapS(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil {
		return "", fmt.Errorf("get: %s", err) // want `formats err with %s`
	}
	return v, nil
}

func wrapErrorString(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil {
		return fmt.Errorf("put: %s", err.Error()) // want `formats err with %s`
	}
	return nil
}

func assignedThenReturned(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil {
		err = fmt.Errorf("put failed: %v", err) // want `formats err with %v`
	}
	return err
}

func sentOnChannel(ctx context.Context, out chan<- error) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		out <- fmt.Errorf("put: %v", err) // want `formats err with %v`
	}
}

func ctxErrFormatted(ctx context.Context) error {
	return fmt.Errorf("aborted: %v", ctx.Err()) // want `formats ctx.Err\(\) with %v`
}

func mixed(ctx context.Context, base error) error {
	err := store.Put(ctx, "k", "v")
	return fmt.Errorf("%w: %v", base, err) // want `formats err with %v`
}

// ---- errors.New(err.Error()) ----

func newFromText(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New(err.Error()) // want `errors.New builds a new error from the text of err`
	}
	return nil
}

func newWithPrefix(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New("store: " + err.Error()) // want `errors.New builds a new error from the text of err`
	}
	return nil
}

func errorfText(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return fmt.Errorf(err.Error()) // want `fmt.Errorf builds a new error from the text of err`
	}
	return nil
}

// ---- a new error from <-ctx.Done() ----

func doneNewError(ctx context.Context, ch <-chan result) (result, error) {
	select {
	case <-ctx.Done():
		return result{}, errors.New("worker aborted") // want `errors.New\("worker aborted"\) replaces ctx's end with a new error`
	case r := <-ch:
		return r, nil
	}
}

func doneSentinel(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		return ErrStopped // want `ErrStopped replaces ctx's end with a new sentinel`
	case <-ch:
		return nil
	}
}

func ctxErrSentinel(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrStopped // want `ErrStopped replaces ctx's end`
	}
	return store.Put(ctx, "k", "v")
}

func ctxErrVar(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped before put") // want `replaces ctx's end with a new error`
	}
	return nil
}

// ---- cancellation reported as timeout ----

func doneTimeout(ctx context.Context, ch <-chan result) (result, error) {
	select {
	case <-ctx.Done():
		return result{}, ErrTimeout // want `ErrTimeout reports ctx's end as a timeout`
	case r := <-ch:
		return r, nil
	}
}

func requestTimeout(r *http.Request, ch <-chan result) error {
	select {
	case <-r.Context().Done():
		return ErrDeadline // want `ErrDeadline reports r.Context\(\)'s end as a timeout`
	case <-ch:
		return nil
	}
}

func derivedTimeout(ctx context.Context, ch <-chan result) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	select {
	case <-ctx.Done():
		return errors.New("request timed out") // want `reports ctx's end as a timeout`
	case <-ch:
		return nil
	}
}

func isEitherTimeout(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return ErrTimeout // want `ErrTimeout reports the cancellation in err as a timeout`
	}
	return err
}

// ---- == and switch ----

func eqCanceled(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return err == context.Canceled // want `err == context.Canceled misses a wrapped cancellation`
}

func neqDeadline(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil && err != context.DeadlineExceeded { // want `err != context.DeadlineExceeded misses`
		return err
	}
	return nil
}

func reversedEq(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return context.Canceled == err // want `err == context.Canceled misses`
}

type info struct{ err error }

func fieldEq(ctx context.Context, in *info) bool {
	in.err = store.Put(ctx, "k", "v")
	if in.err == context.Canceled { // want `in.err == context.Canceled misses`
		return true
	}
	return false
}

// mapErr maps the context's errors to this package's; callers pass ctx.Err().
func mapErr(err error) error {
	switch err {
	case context.Canceled:
		return ErrStopped
	case context.DeadlineExceeded:
		return ErrTimeout
	}
	return err
}

func mapsCtxErr(ctx context.Context) error { return mapErr(ctx.Err()) }

// mapPutErr is given wrapped errors, but what its cases miss it returns as
// it came: nothing is lost.
func mapPutErr(err error) error {
	switch err {
	case context.Canceled:
		return ErrStopped
	}
	return err
}

func mapsPut(ctx context.Context) error { return mapPutErr(store.Put(ctx, "k", "v")) }

// unknownOrigin has no caller here: whoever calls it decides what it sees.
func unknownOrigin(err error) bool {
	return err == context.Canceled // want `err == context.Canceled misses a wrapped cancellation`
}

// classify is given the error of a context-bound call.
func classify(err error) string {
	if err == context.DeadlineExceeded { // want `err == context.DeadlineExceeded misses a wrapped cancellation`
		return "timeout"
	}
	return "failed"
}

func classifiesPut(ctx context.Context) string { return classify(store.Put(ctx, "k", "v")) }

// classifyExact is only given ctx.Err(): never wrapped.
func classifyExact(err error) string {
	if err == context.DeadlineExceeded {
		return "timeout"
	}
	return "canceled"
}

func classifiesCtx(ctx context.Context) string { return classifyExact(ctx.Err()) }

func switchErr(ctx context.Context) string {
	err := store.Put(ctx, "k", "v")
	switch err { // want `switch on err compares it with == against context.Canceled`
	case nil:
		return "ok"
	case context.Canceled:
		return "canceled"
	default:
		return "failed"
	}
}

func swapped(err error) bool {
	return errors.Is(context.Canceled, err) // want `errors.Is\(context.Canceled, err\) has its arguments swapped`
}

// ---- NEGATIVES ----

func wrapW(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return nil
}

func twoW(ctx context.Context, base error) error {
	err := store.Put(ctx, "k", "v")
	return fmt.Errorf("%w: %w", base, err)
}

func joined(ctx context.Context, base error) error {
	return errors.Join(base, store.Put(ctx, "k", "v"))
}

func logged(ctx context.Context) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		log.Printf("put: %v", err)
		log.Print(fmt.Errorf("put: %v", err))
	}
}

func loggedVar(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if err != nil {
		e := fmt.Errorf("put failed: %v", err)
		log.Println(e)
		return err
	}
	return nil
}

func panicked(ctx context.Context) {
	if err := ctx.Err(); err != nil {
		panic(fmt.Sprintf("unexpected: %v", err))
	}
	if err := store.Put(ctx, "k", "v"); err != nil {
		panic(fmt.Errorf("put: %v", err))
	}
}

func notCarrier(s string) error {
	err := errors.New("bad " + s)
	return fmt.Errorf("parse: %v", err)
}

func detached(ctx context.Context) error {
	if err := store.Put(context.WithoutCancel(ctx), "k", "v"); err != nil {
		return fmt.Errorf("audit: %v", err)
	}
	return nil
}

func stringified(ctx context.Context) string {
	err := store.Put(ctx, "k", "v")
	return fmt.Sprintf("status: %v", err)
}

func checkedFirst(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) {
		return err
	}
	if err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return nil
}

func doneReturnsErr(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

func doneWrapped(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrTimeout, context.Cause(ctx))
	case <-ch:
		return nil
	}
}

type client struct {
	closed context.Context
}

var ErrClosed = errors.New("client closed")

func (c *client) send(ch chan<- int) error {
	select {
	case <-c.closed.Done():
		return ErrClosed // the client's own end: closed is the right answer
	case ch <- 1:
		return nil
	}
}

func localTimer(ch <-chan result) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	select {
	case <-ctx.Done():
		return ErrTimeout // can only time out
	case <-ch:
		return nil
	}
}

func deadlineOnly(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout // a real timeout
	}
	return err
}

func canceledNamed(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) {
		return ErrStopped // a deliberate name for cancellation
	}
	return err
}

func ctxErrCompare(ctx context.Context) bool {
	if ctx.Err() == context.Canceled {
		return true
	}
	err := ctx.Err()
	return err == context.DeadlineExceeded || context.Cause(ctx) == context.Canceled
}

func isUsed(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return errors.Is(err, context.Canceled)
}

type myErr struct{ code int }

func (e *myErr) Error() string { return "x" }

func (e *myErr) Is(target error) bool { return target == context.Canceled }

func doneNil(ctx context.Context) error {
	<-ctx.Done()
	return nil // swallowcancel's business, not this check's
}

func doneLocalVar(ctx context.Context, last error) error {
	select {
	case <-ctx.Done():
		return last
	default:
		return nil
	}
}

func ctxErrSwitch(ctx context.Context) string {
	switch ctx.Err() {
	case context.Canceled:
		return "canceled"
	case context.DeadlineExceeded:
		return "timeout"
	}
	return ""
}

func slowNotTimeout(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrSlow // not a timeout word, and an errors.Is mapping is a deliberate translation
	}
	return err
}

func ignored(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		//cancelcheck:ignore foldedtimeout this API hides internals on purpose
		return fmt.Errorf("internal error: %v", err)
	}
	return nil
}

func grpcDeadline(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		return status.Error(status.DeadlineExceeded, "deadline") // want `status.Error\(status.DeadlineExceeded, "deadline"\) reports ctx's end as a timeout`
	case <-ch:
		return nil
	}
}

func grpcByCode(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return status.Error(status.DeadlineExceeded, "deadline")
		}
		return status.Error(status.Canceled, "canceled")
	case <-ch:
		return nil
	}
}

func timeoutFormatted(ctx context.Context, ch <-chan result) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("timeout: %v", ctx.Err()) // want `formats ctx.Err\(\) with %v`
	case <-ch:
		return nil
	}
}

func eitherEq(ctx context.Context) bool {
	err := store.Put(ctx, "k", "v")
	return err == context.Canceled || err == context.DeadlineExceeded // want `err == context.Canceled misses a wrapped cancellation`
}

func sprintfNew(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		return errors.New(fmt.Sprintf("put failed: %v", err)) // want `errors.New builds a new error from the text of err`
	}
	return nil
}

func textEq(err error) bool {
	return err.Error() == "context canceled" // want `matching the text of err against context.Canceled's message`
}

func textNeq(err error) bool {
	return err != nil && err.Error() != context.Canceled.Error() // want `matching the text of err against context.Canceled's message`
}

func textContains(err error) bool {
	return strings.Contains(err.Error(), "context deadline exceeded") // want `matching the text of err against context.DeadlineExceeded's message`
}

func textOther(err error) bool {
	return err.Error() == "EOF" || strings.Contains(err.Error(), "timeout")
}

func sprintfLogged(ctx context.Context) {
	if err := store.Put(ctx, "k", "v"); err != nil {
		log.Print(errors.New(fmt.Sprintf("put failed: %v", err)))
	}
}

func ctxCheckedFirst(ctx context.Context) error {
	if err := store.Put(ctx, "k", "v"); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("put: %v", err) // the cancellation left above
	}
	return nil
}

func isCheckedFirst(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err != nil {
		return errors.New("put: " + err.Error())
	}
	return nil
}

var errFetch = errors.New("fetch failed")

// A sentinel wrapped with %w does not keep the call's cancellation.
func fetchSentinel(ctx context.Context) error {
	if err := store.Put(ctx, "token", "v"); err != nil {
		return fmt.Errorf("%w: %v", errFetch, err) // want `fmt.Errorf formats err with %v, so the cancellation it may carry is lost`
	}
	return nil
}
