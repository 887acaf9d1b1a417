package a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"
)

var ErrNotFound = errors.New("not found")

type Client struct{}

func (c *Client) Ping(ctx context.Context) error                    { return nil }
func (c *Client) Get(ctx context.Context, k string) (string, error) { return "", nil }
func (c *Client) Watch(ctx context.Context) (<-chan int, error)     { return nil, nil }

func send(ctx context.Context, m string) error { return nil }
func retryable(err error) bool                 { return true }
func ready() bool                              { return true }
func dial() error                              { return nil }

// ---------------- positives ----------------

// A reconnect loop in the shape of many watch/reconnect bugs: on error it
// logs, sleeps and reconnects forever, even after ctx is canceled.
func WatchLoop(ctx context.Context, c *Client) {
	for {
		ch, err := c.Watch(ctx)
		if err != nil {
			log.Printf("watch: %v", err)
			time.Sleep(time.Second) // want `time.Sleep ignores ctx and the loop never checks it: once ctx is canceled this retry loop keeps sleeping and trying again forever`
			continue
		}
		for range ch {
		}
	}
}

// Dial with backoff but no sleep and no check: spins.
func Connect(ctx context.Context, c *Client) error {
	backoff := time.Millisecond
	for { // want `this retry loop in Connect calls c.Ping again after it fails without checking ctx: once ctx is canceled every attempt fails at once and the loop keeps trying forever`
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		backoff *= 2
	}
}

// Only exits: success or the attempt counter.
func SendRetry(ctx context.Context, m string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `calls send again after it fails without checking ctx.*until its attempts run out`
		if err = send(ctx, m); err == nil {
			return nil
		}
	}
	return err
}

// The error is returned only when the attempts are exhausted.
func SendCounted(ctx context.Context, m string) error {
	for attempt := 1; ; attempt++ { // want `calls send again after it fails`
		err := send(ctx, m)
		if err == nil {
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("send after %d attempts: %w", attempt, err)
		}
	}
}

// Range over an integer with a sleeping backoff.
func Fetch(ctx context.Context, c *Client) (string, error) {
	var lastErr error
	for i := range 3 {
		v, err := c.Get(ctx, "k")
		if err == nil {
			return v, nil
		}
		lastErr = err
		time.Sleep(time.Duration(i) * 100 * time.Millisecond) // want `time.Sleep ignores ctx and the loop never checks it`
	}
	return "", lastErr
}

// A ticker loop that never looks at ctx: the goroutine outlives it.
func Refresh(ctx context.Context, c *Client) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for range t.C { // want `ranging over t.C ignores ctx and the loop never checks it: once ctx is canceled this retry loop keeps sleeping and trying again forever`
		if err := c.Ping(ctx); err != nil {
			log.Print(err)
		}
	}
}

// A select over the ticker only.
func RefreshSelect(ctx context.Context, c *Client) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select { // want `this select over timers only ignores ctx`
		case <-t.C:
			if err := c.Ping(ctx); err != nil {
				log.Print(err)
			}
		}
	}
}

// <-time.After as the backoff.
func After(ctx context.Context, c *Client) error {
	for {
		if err := c.Ping(ctx); err == nil {
			return nil
		}
		<-time.After(time.Second) // want `<-time.After ignores ctx`
	}
}

// Retrying on the parent's deadline: spins once it has passed.
func Deadline(ctx context.Context, c *Client) error {
	for {
		err := c.Ping(ctx)
		if errors.Is(err, context.DeadlineExceeded) { // want `this retry loop in Deadline tries again when c.Ping fails with the cancellation of ctx, a context from outside the loop`
			continue
		}
		return err
	}
}

// Same with ==.
func DeadlineEq(ctx context.Context, m string) error {
	for {
		err := send(ctx, m)
		if err == context.Canceled || err == context.DeadlineExceeded { // want `tries again when send fails with the cancellation of ctx`
			log.Print("retrying")
			continue
		}
		return err
	}
}

// The loop checks ctx but the backoff sleep cannot be interrupted.
func CheckedSleep(ctx context.Context, c *Client) error {
	for ctx.Err() == nil {
		if err := c.Ping(ctx); err == nil {
			return nil
		}
		time.Sleep(5 * time.Second) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff`
	}
	return ctx.Err()
}

// Context held by the receiver.
type Worker struct {
	ctx context.Context
	c   *Client
}

func (w *Worker) run() {
	for {
		if err := w.c.Ping(w.ctx); err != nil {
			time.Sleep(time.Second) // want `time.Sleep ignores w.ctx`
		}
	}
}

// Exits only on a specific error.
func Lookup(ctx context.Context, c *Client) (string, error) {
	for { // want `calls c.Get again after it fails without checking ctx`
		v, err := c.Get(ctx, "k")
		if errors.Is(err, ErrNotFound) {
			return "", err
		}
		if err == nil {
			return v, nil
		}
	}
}

// A poll loop in a handler: the request's context is in reach.
func Handler(w http.ResponseWriter, r *http.Request) {
	for !ready() {
		time.Sleep(100 * time.Millisecond) // want `time.Sleep ignores r.Context\(\)`
	}
}

// An HTTP poll with a request bound to ctx.
func PollHTTP(ctx context.Context, url string) {
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(2 * time.Second) // want `time.Sleep ignores ctx`
	}
}

// A goroutine literal whose loop ignores the spawner's ctx.
func Spawn(ctx context.Context, c *Client) {
	go func() {
		for { // want `calls c.Ping again after it fails without checking ctx`
			if err := c.Ping(ctx); err != nil {
				log.Print(err)
				continue
			}
			return
		}
	}()
}

// ---------------- negatives ----------------

// Sleep in a select with ctx.Done().
func SelectBackoff(ctx context.Context, c *Client) error {
	for {
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// The loop condition checks ctx.
func CondChecked(ctx context.Context, c *Client) {
	for ctx.Err() == nil {
		if err := c.Ping(ctx); err == nil {
			return
		}
	}
}

// The bound call's error is returned: the loop stops on cancellation.
func ReturnsErr(ctx context.Context, c *Client) error {
	for {
		ch, err := c.Watch(ctx)
		if err != nil {
			return err
		}
		for range ch {
		}
	}
}

// An unknown classifier decides; the error is returned when final.
func Classified(ctx context.Context, m string) error {
	for {
		err := send(ctx, m)
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return err
		}
	}
}

// Stops on cancellation explicitly.
func StopsOnCancel(ctx context.Context, m string) error {
	for {
		err := send(ctx, m)
		if errors.Is(err, context.Canceled) {
			return err
		}
		if err == nil {
			return nil
		}
	}
}

// A ticker plus ctx.Done().
func Ticker(ctx context.Context, c *Client) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := c.Ping(ctx); err != nil {
				log.Print(err)
			}
		}
	}
}

// A stop channel ends the loop.
func StopChan(ctx context.Context, c *Client, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			_ = c.Ping(ctx)
		}
	}
}

// A loop over a collection: swallowcancel's business.
func Each(ctx context.Context, items []string) {
	for _, it := range items {
		if err := send(ctx, it); err != nil {
			log.Print(err)
		}
		time.Sleep(time.Millisecond)
	}
}

// No context in reach and no bound call.
func NoContext() {
	for {
		if err := dial(); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// A per-attempt timeout derived inside the loop gives DeadlineExceeded,
// but so does ctx once it has ended: retrying it without looking at ctx
// spins.
func PerAttempt(ctx context.Context, c *Client) error {
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(actx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) { // want `this retry loop in PerAttempt tries again when c.Ping fails with a context error, which its per-attempt timeout gives but so does ctx once it has ended`
			continue
		}
		return err
	}
}

// A per-attempt timeout may be retried while the parent is live.
func PerAttemptChecked(ctx context.Context, c *Client) error {
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(actx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		return err
	}
}

// A local helper that reports whether ctx ended: known from this package's
// own summary (no fact: other packages cannot call it).
func done(ctx context.Context) bool {
	return ctx.Err() != nil
}

func LocalHelper(ctx context.Context, m string) {
	for {
		if done(ctx) {
			return
		}
		_ = send(ctx, m)
	}
}

// Breaks on any error; the error is returned after the loop.
func BreakOnErr(ctx context.Context, c *Client) error {
	var err error
	for {
		var ch <-chan int
		if ch, err = c.Watch(ctx); err != nil {
			break
		}
		for range ch {
		}
	}
	return err
}

// A tagless switch whose default returns.
func Switch(ctx context.Context, m string) error {
	for {
		err := send(ctx, m)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			continue
		default:
			return err
		}
	}
}

// Exits on err != nil with a wrapped error.
func Wrapped(ctx context.Context, c *Client) (string, error) {
	for {
		v, err := c.Get(ctx, "k")
		if err != nil {
			return "", fmt.Errorf("get: %w", err)
		}
		if v != "" {
			return v, nil
		}
	}
}

// The condition and the context check live together.
func CounterAndCtx(ctx context.Context, m string) error {
	var err error
	for i := 0; i < 3 && ctx.Err() == nil; i++ {
		if err = send(ctx, m); err == nil {
			return nil
		}
	}
	return err
}

// A deadline test that also asks the parent.
func DeadlineParent(ctx context.Context, c *Client) error {
	for {
		err := c.Ping(ctx)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// Documented and silenced.
func Silenced(ctx context.Context, c *Client) {
	for {
		_ = c.Ping(ctx)
		//cancelcheck:ignore retrycancel the probe must run until the process exits
		time.Sleep(time.Second)
	}
}

// A counted loop that indexes: a collection.
func Indexed(ctx context.Context, items []string) {
	for i := 0; i < len(items); i++ {
		_ = send(ctx, items[i])
		time.Sleep(time.Millisecond)
	}
}

// A root context never ends: nothing to stop on.
func Bench(c *Client) {
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		_ = c.Ping(ctx)
	}
}

// A local deadline can end: the loop spins after it passes.
func LocalDeadline(c *Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for { // want `calls c.Ping again after it fails without checking ctx`
		if err := c.Ping(ctx); err == nil {
			return
		}
	}
}

// A deliberate hang with no exit: nothing is polled or retried.
func Hang(ctx context.Context) {
	for {
		time.Sleep(5 * time.Second)
	}
}

// A delay: the loop sleeps and counts, it retries nothing.
func Delay(ctx context.Context, n int) {
	for i := 0; i < 3; i++ {
		time.Sleep(time.Millisecond)
	}
	count := 0
	for {
		println("waiting", count)
		time.Sleep(time.Millisecond)
		count++
		if count > n {
			break
		}
	}
}

// A poll that never ends: context-less work between sleeps, forever.
func PollForever(ctx context.Context, load func() error) {
	for {
		load()
		time.Sleep(time.Second) // want `time.Sleep ignores ctx and the loop never checks it: once ctx is canceled this retry loop keeps sleeping and trying again forever`
	}
}

// A poll inside a select over timers: the case body does the work.
func PollTicker(ctx context.Context, synced func() bool) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select { // want `this select over timers only ignores ctx and the loop never checks it`
		case <-tick.C:
			if synced() {
				return nil
			}
		}
	}
}

// The loop condition classifies the error (the net.Dial self-connect shape).
func SelfConnect(ctx context.Context, c *Client) error {
	err := c.Ping(ctx)
	for i := 0; i < 2 && retryable(err); i++ {
		err = c.Ping(ctx)
	}
	return err
}

// Attempts over a list of servers: the inner walk over the collection owns
// the dropped error (the resolver shape).
func Servers(ctx context.Context, servers []string, attempts int) error {
	var lastErr error
	for i := 0; i < attempts; i++ {
		for j := 0; j < len(servers); j++ {
			if err := send(ctx, servers[j]); err != nil {
				lastErr = err
				continue
			}
			return nil
		}
	}
	return lastErr
}

type queue struct{}

var errDisposed = errors.New("disposed")

func (q *queue) Peek() (string, error) { return "", nil }

func process(ctx context.Context, s string) {}

// A ticker-driven retry worker that is handed ctx but never selects on it
// (the failback-invoker shape): its only exit is the queue being disposed.
func Failback(ctx context.Context, q *queue) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for range t.C { // want `ranging over t.C ignores ctx`
		v, err := q.Peek()
		if err == errDisposed {
			return
		}
		go process(ctx, v)
	}
}

// The same worker checking ctx on every tick.
func FailbackChecked(ctx context.Context, q *queue) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for range t.C {
		if ctx.Err() != nil {
			return
		}
		v, _ := q.Peek()
		go process(ctx, v)
	}
}

type gate struct{ set chan struct{} }

func (g *gate) waitAndLock(ctx context.Context) error {
	select {
	case <-g.set:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type stream struct {
	outctx  context.Context
	outgate gate
}

// The wait happens only when blocked, and its error is returned (the QUIC
// stream write shape): the outer test guards the call, not its failure.
func (s *stream) Write(b []byte) (n int, err error) {
	canWrite := false
	for {
		if len(b) > 0 && !canWrite {
			if err := s.outgate.waitAndLock(s.outctx); err != nil {
				return n, err
			}
		}
		if len(b) == 0 {
			break
		}
		b = b[1:]
	}
	return n, nil
}

// <-ticker.C as the wait of a poll loop.
func TickerWait(ctx context.Context, c *Client) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		<-t.C // want `<-t.C ignores ctx`
		if err := c.Ping(ctx); err == nil {
			return
		}
	}
}

// A short constant pause in a loop that checks ctx: negligible delay.
func ShortPause(ctx context.Context, c *Client) {
	for ctx.Err() == nil {
		_ = c.Ping(ctx)
		time.Sleep(10 * time.Millisecond)
	}
}

// A consumer loop that logs and continues on every error: it spins once
// ctx is canceled.
func Consume(ctx context.Context, c *Client) {
	for { // want `calls c.Get again after it fails without checking ctx`
		v, err := c.Get(ctx, "queue")
		if err != nil {
			log.Printf("receive: %v", err)
			continue
		}
		log.Print(v)
	}
}

// A periodic worker: no exit at all, sleeps between rounds.
func Periodic(ctx context.Context, c *Client) {
	for {
		if err := c.Ping(ctx); err != nil {
			log.Print(err)
		}
		time.Sleep(30 * time.Second) // want `time.Sleep ignores ctx and the loop never checks it`
	}
}

// A status poll that returns errors but sleeps uninterruptibly.
func PollStatus(ctx context.Context, c *Client) (string, error) {
	for {
		s, err := c.Get(ctx, "status")
		if err != nil {
			return "", err
		}
		if s == "done" {
			return s, nil
		}
		time.Sleep(5 * time.Second) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff`
	}
}

// The same poll with a select: clean.
func PollStatusSelect(ctx context.Context, c *Client) (string, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
		s, err := c.Get(ctx, "status")
		if err != nil {
			return "", err
		}
		if s == "done" {
			return s, nil
		}
		t.Reset(5 * time.Second)
	}
}

// A reconnect goroutine with an error-checking consumer.
func Subscribe(ctx context.Context, c *Client) {
	for {
		v, err := c.Get(ctx, "sub")
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Print(err)
			continue
		}
		log.Print(v)
	}
}

func listPage(ctx context.Context, token string) ([]string, string, error) { return nil, "", nil }

// A walk over pages: the call's argument changes every round; not a retry.
func Pages(ctx context.Context) []string {
	var all []string
	token := ""
	for {
		items, next, err := listPage(ctx, token)
		if err != nil {
			log.Print(err)
		}
		all = append(all, items...)
		if next == "" {
			return all
		}
		token = next
	}
}

// A background refresher started from a handler: it never looks at the
// request, so the request's context does not bound it.
func StartRefresher(w http.ResponseWriter, r *http.Request) {
	go func() {
		for !ready() {
			time.Sleep(time.Second)
		}
	}()
}

type listener interface{ Accept() (int, error) }

type tempErr interface{ Temporary() bool }

// An accept loop: the short backoff on temporary errors ends when the
// listener is closed (the loop returns the error).
func Serve(ctx context.Context, l listener) error {
	var delay time.Duration
	for {
		_, err := l.Accept()
		if err != nil {
			if te, ok := err.(tempErr); ok && te.Temporary() {
				delay = 2*delay + time.Millisecond
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
	}
}

func handleConn(ctx context.Context, conn int) error { return nil }

// An accept loop handing connections to goroutines: the goroutine's error
// never reaches the loop.
func AcceptLoop(ctx context.Context, l listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go handleConn(ctx, conn)
	}
}

// Retrying the parent's deadline from a switch.
func DeadlineSwitch(ctx context.Context, c *Client) error {
	for {
		err := c.Ping(ctx)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded): // want `tries again when c.Ping fails with the cancellation of ctx`
			continue
		default:
			return err
		}
	}
}

// Stopping on cancellation from a switch.
func CanceledSwitch(ctx context.Context, c *Client) error {
	for {
		err := c.Ping(ctx)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, context.Canceled):
			return err
		}
	}
}

// A pause at the end of an if body, followed by the way out.
func LingerIf(ctx context.Context, c *Client, slow bool) error {
	for {
		err := c.Ping(ctx)
		if err != nil {
			if slow {
				time.Sleep(time.Second)
			}
			return err
		}
	}
}

// The attempts run on a root context: cancellation of ctx cannot reach them
// (the fresh root is detachedctx's finding).
func Detached(ctx context.Context, c *Client) {
	for {
		if err := c.Ping(context.Background()); err == nil {
			return
		}
	}
}

// Honouring Retry-After with an uninterruptible sleep; the request is
// rebuilt each round from the same inputs (a retry, not a walk).
func RetryAfter(ctx context.Context, url string) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second) // want `time.Sleep ignores ctx: once ctx is canceled this retry loop still sleeps out its backoff`
	}
}
