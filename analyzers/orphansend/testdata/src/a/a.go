package a

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

type Page struct{}

func load(string) *Page            { return nil }
func check() error                 { return nil }
func query(string) (string, error) { return "", nil }
func compute(context.Context) int  { return 0 }

// Modeled on the classic result-with-timeout leak (cadvisor runner,
// prometheus test, health-go check timeout): the receiver times out first.
func fetchTimeout(url string) (*Page, error) {
	ch := make(chan *Page)
	go func() {
		ch <- load(url) // want `the send on ch blocks forever once fetchTimeout stops receiving at .case <-time.After\(time.Second\)., so the goroutine leaks`
	}()
	select {
	case p := <-ch:
		return p, nil
	case <-time.After(time.Second):
		return nil, errors.New("timeout")
	}
}

// Modeled on erigon's httpreqresp.Do: the request context wins the race.
func do(handler http.Handler, r *http.Request) (*http.Response, error) {
	ans := make(chan *http.Response)
	go func() {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		ans <- rec.Result() // want `the send on ans blocks forever once do stops receiving at .case <-r.Context\(\).Done\(\).`
	}()
	select {
	case res := <-ans:
		return res, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// An early return before the receive abandons the sender.
func early(ctx context.Context) (int, error) {
	res := make(chan int)
	go func() {
		res <- compute(ctx) // want `the send on res blocks forever when early returns before receiving from it`
	}()
	if err := check(); err != nil {
		return 0, err
	}
	return <-res, nil
}

// First response wins: the other senders block forever.
func first(servers []string) string {
	c := make(chan string)
	for _, s := range servers {
		go func() {
			r, _ := query(s)
			c <- r // want `sends on c from goroutines started in a loop block forever once first stops receiving early`
		}()
	}
	return <-c
}

// Receive loop that returns at the first error: the remaining senders leak.
func all(ctx context.Context, urls []string) ([]string, error) {
	type result struct {
		s   string
		err error
	}
	results := make(chan result)
	for _, u := range urls {
		go func() {
			s, err := query(u)
			results <- result{s, err} // want `sends on results from goroutines started in a loop block forever once all stops receiving early`
		}()
	}
	var out []string
	for range urls {
		r := <-results
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.s)
	}
	return out, nil
}

// Receive loop with a select on ctx.Done.
func allCtx(ctx context.Context, n int) ([]int, error) {
	results := make(chan int)
	for i := 0; i < n; i++ {
		go func() {
			results <- compute(ctx) // want `sends on results from goroutines started in a loop block forever once allCtx stops receiving at .case <-ctx.Done\(\).`
		}()
	}
	var out []int
	for i := 0; i < n; i++ {
		select {
		case r := <-results:
			out = append(out, r)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// Modeled on grpc-go style "wait for server error or shutdown": Shutdown
// makes Serve return, and its error has nobody to receive it.
type server struct{}

func (*server) Serve() error                   { return nil }
func (*server) Shutdown(context.Context) error { return nil }

func run(ctx context.Context, s *server) error {
	errc := make(chan error)
	go func() {
		errc <- s.Serve() // want `the send on errc blocks forever once run stops receiving at .case <-ctx.Done\(\).`
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return s.Shutdown(context.Background())
	}
}

// Mirror: the only sender gives up on cancellation without sending or
// closing, and the receiver blocks.
func mirror(ctx context.Context, in <-chan int) int {
	out := make(chan int)
	go func() {
		select {
		case <-ctx.Done():
			return
		case v := <-in:
			select {
			case out <- v * 2:
			case <-ctx.Done():
			}
		}
	}()
	return <-out // want `this receive from out blocks forever when the goroutine takes .case <-ctx.Done\(\).`
}

// ---- near misses ----

// Buffered for its one sender.
func okBuffered(url string) (*Page, error) {
	ch := make(chan *Page, 1)
	go func() { ch <- load(url) }()
	select {
	case p := <-ch:
		return p, nil
	case <-time.After(time.Second):
		return nil, errors.New("timeout")
	}
}

// The send is in a select with ctx.Done.
func okSelectSend(ctx context.Context) (int, error) {
	ch := make(chan int)
	go func() {
		select {
		case ch <- compute(ctx):
		case <-ctx.Done():
		}
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Received on every path.
func okAlways(ctx context.Context) int {
	ch := make(chan int)
	go func() { ch <- compute(ctx) }()
	if err := check(); err != nil {
		<-ch
		return 0
	}
	return <-ch
}

// Buffered to the number of senders.
func okSized(urls []string) []string {
	c := make(chan string, len(urls))
	for _, u := range urls {
		go func() {
			r, _ := query(u)
			c <- r
		}()
	}
	var out []string
	for range urls {
		r := <-c
		if r == "" {
			return nil
		}
		out = append(out, r)
	}
	return out
}

// Drains one result per sender, no early exit.
func okDrain(urls []string) []string {
	c := make(chan string)
	for _, u := range urls {
		go func() {
			r, _ := query(u)
			c <- r
		}()
	}
	var out []string
	for range urls {
		out = append(out, <-c)
	}
	return out
}

// The sender closes a done channel: close never blocks.
func okClose(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		compute(ctx)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The channel escapes unbuffered: a caller that stops waiting strands the
// send (a one-shot future).
func futureEscapes(url string) <-chan *Page {
	ch := make(chan *Page)
	go func() { ch <- load(url) }() // want `the send on ch blocks forever once the caller of futureEscapes stops waiting`
	return ch
}

// The producer closes the channel and the receiver ranges to the end.
func okRange(items []string) int {
	ch := make(chan string)
	go func() {
		for _, it := range items {
			ch <- it
		}
		close(ch)
	}()
	n := 0
	for range ch {
		n++
	}
	return n
}

// Two senders, two slots.
func okTwo(a, b string) string {
	ch := make(chan string, 2)
	go func() { r, _ := query(a); ch <- r }()
	go func() { r, _ := query(b); ch <- r }()
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Second):
		return ""
	}
}

// Buffer not constant: assumed sized.
func okDynamic(n int, urls []string) string {
	ch := make(chan string, n)
	for _, u := range urls {
		go func() { r, _ := query(u); ch <- r }()
	}
	return <-ch
}

// Mirror near miss: the sender closes on cancellation.
func okMirrorClose(ctx context.Context, in <-chan int) int {
	out := make(chan int)
	go func() {
		defer close(out)
		select {
		case <-ctx.Done():
			return
		case v := <-in:
			out <- v
		}
	}()
	return <-out
}

// Mirror near miss: the receiver also selects on ctx.Done.
func okMirrorSelect(ctx context.Context, in <-chan int) int {
	out := make(chan int)
	go func() {
		select {
		case <-ctx.Done():
			return
		case v := <-in:
			select {
			case out <- v:
			case <-ctx.Done():
			}
		}
	}()
	select {
	case v := <-out:
		return v
	case <-ctx.Done():
		return 0
	}
}

// The receiver waits in a loop, keeps going on ticks and receives once.
func okTicks(ctx context.Context) int {
	ch := make(chan int)
	go func() { ch <- compute(ctx) }()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case v := <-ch:
			return v
		case <-t.C:
		}
	}
}

// Received by another goroutine.
func okOtherReceiver(ctx context.Context) {
	ch := make(chan int)
	go func() { ch <- compute(ctx) }()
	go func() { <-ch }()
}

// Panics are not returns.
func okPanic(ctx context.Context) int {
	ch := make(chan int)
	go func() { ch <- compute(ctx) }()
	if check() != nil {
		panic("boom")
	}
	return <-ch
}

type proc struct{}

func (*proc) Wait() error { return nil }
func (*proc) Kill() error { return nil }

// Modeled on moby/containerd exec waits: killing the process makes Wait
// return, and its error has nobody left to receive it.
func waitOrKill(ctx context.Context, p *proc) error {
	errCh := make(chan error)
	go func() {
		errCh <- p.Wait() // want `the send on errCh blocks forever once waitOrKill stops receiving at .case <-ctx.Done\(\).`
	}()
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		p.Kill()
		return ctx.Err()
	}
}

// The same with the kill path draining the error: no leak.
func okWaitOrKill(ctx context.Context, p *proc) error {
	errCh := make(chan error)
	go func() { errCh <- p.Wait() }()
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		p.Kill()
		<-errCh
		return ctx.Err()
	}
}

// Only the last goroutine to finish sends (runtime tests): one receive is
// enough.
func okLastSends(n int) {
	done := make(chan bool)
	var mu sync.Mutex
	left := n
	for i := 0; i < n; i++ {
		go func() {
			mu.Lock()
			left--
			last := left == 0
			mu.Unlock()
			if last {
				done <- true
			}
		}()
	}
	<-done
}

// The receive is the range expression of a loop over the received map: it
// runs once per iteration of the outer loop, which drains every sender.
func okRangeOverReceived(n int) int {
	done := make(chan map[int]int)
	for i := 0; i < n; i++ {
		go func() { done <- map[int]int{i: i} }()
	}
	total := 0
	for i := 0; i < n; i++ {
		for _, v := range <-done {
			total += v
		}
	}
	return total
}

// Mirror through a ctx.Err check: the sender gives up before sending and
// the receive waits forever.
func mirrorErr(ctx context.Context) int {
	res := make(chan int)
	go func() {
		if ctx.Err() != nil {
			return
		}
		res <- compute(ctx)
	}()
	return <-res // want `this receive from res blocks forever when the goroutine checks .ctx.Err\(\) != nil.`
}

// The sender checks ctx.Err but sends the error instead of returning.
func okMirrorErrSent(ctx context.Context) error {
	res := make(chan error)
	go func() {
		if err := ctx.Err(); err != nil {
			res <- err
			return
		}
		res <- check()
	}()
	return <-res
}

func fetchInto(url string, out chan<- *Page) {
	out <- load(url)
}

// The sender is a function of the package that sends on its parameter.
func viaWorker(ctx context.Context, url string) (*Page, error) {
	out := make(chan *Page)
	go fetchInto(url, out) // want `the send on out blocks forever once viaWorker stops receiving at .case <-ctx.Done\(\).`
	select {
	case p := <-out:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func fetchOrQuit(ctx context.Context, url string, out chan<- *Page) {
	select {
	case out <- load(url):
	case <-ctx.Done():
	}
}

// The called sender selects on ctx.Done: no blocking send.
func okViaWorker(ctx context.Context, url string) (*Page, error) {
	out := make(chan *Page)
	go fetchOrQuit(ctx, url, out)
	select {
	case p := <-out:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Many called senders, a drain loop that returns early.
func viaWorkers(urls []string) []*Page {
	out := make(chan *Page)
	for _, u := range urls {
		go fetchInto(u, out) // want `sends on out from goroutines started in a loop block forever once viaWorkers stops receiving early`
	}
	var pages []*Page
	for range urls {
		p := <-out
		if p == nil {
			return nil
		}
		pages = append(pages, p)
	}
	return pages
}

// One goroutine per mirror, a buffer of one, and the first success wins
// (mirror pickers in package managers): every other successful download
// blocks on the full buffer.
func firstMirror(ctx context.Context, mirrors []string) (string, error) {
	got := make(chan string, 1)
	for _, m := range mirrors {
		go func() {
			body, err := query(m)
			if err == nil {
				got <- body // want `sends on got from goroutines started in a loop block forever once firstMirror stops receiving at .case <-ctx.Done\(\)., so the remaining goroutines leak`
			}
		}()
	}
	select {
	case b := <-got:
		return b, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Near miss: the buffer holds every mirror's result.
func okFirstMirrorBuffered(ctx context.Context, mirrors []string) (string, error) {
	got := make(chan string, len(mirrors))
	for _, m := range mirrors {
		go func() {
			body, err := query(m)
			if err == nil {
				got <- body
			}
		}()
	}
	select {
	case b := <-got:
		return b, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Near miss: a constant number of senders that the buffer holds.
func okThreeProbes() string {
	got := make(chan string, 3)
	for i := 0; i < 3; i++ {
		go func() {
			body, err := query("probe")
			if err == nil {
				got <- body
			}
		}()
	}
	return <-got
}

// Near miss: the sender is chosen by a shared counter, only the last one
// sends.
func okLastOfShards(shards []string) {
	done := make(chan struct{}, 1)
	var mu sync.Mutex
	left := len(shards)
	for range shards {
		go func() {
			mu.Lock()
			left--
			n := left
			mu.Unlock()
			if n == 0 {
				done <- struct{}{}
			}
		}()
	}
	<-done
}

// Results and errors on two channels; the collector returns on the first
// error, and the later successes block on the unbuffered results channel
// (the errgroup-less fan-in of many CLI tools).
func statAll(ctx context.Context, paths []string) ([]string, error) {
	res := make(chan string)
	errs := make(chan error, len(paths))
	for _, p := range paths {
		go func() {
			s, err := query(p)
			if err != nil {
				errs <- err
				return
			}
			res <- s // want `sends on res from goroutines started in a loop block forever once statAll stops receiving early, so the remaining goroutines leak`
		}()
	}
	var out []string
	for range paths {
		select {
		case s := <-res:
			out = append(out, s)
		case err := <-errs:
			return nil, err
		}
	}
	return out, nil
}

// Near miss: the collector remembers the first error and keeps receiving
// until every goroutine has reported.
func okStatAllDrained(ctx context.Context, paths []string) ([]string, error) {
	res := make(chan string)
	errs := make(chan error, len(paths))
	for _, p := range paths {
		go func() {
			s, err := query(p)
			if err != nil {
				errs <- err
				return
			}
			res <- s
		}()
	}
	var out []string
	var first error
	for range paths {
		select {
		case s := <-res:
			out = append(out, s)
		case err := <-errs:
			if first == nil {
				first = err
			}
		}
	}
	return out, first
}

// The goroutine body is a func value bound once to a local and started by
// name.
func namedWorker(ctx context.Context, url string) (*Page, error) {
	out := make(chan *Page)
	fetch := func() {
		out <- load(url) // want `the send on out blocks forever once namedWorker stops receiving at .case <-ctx.Done\(\)., so the goroutine leaks`
	}
	go fetch()
	select {
	case p := <-out:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Near miss: the named body has a buffer slot for its result.
func okNamedWorkerBuffered(ctx context.Context, url string) (*Page, error) {
	out := make(chan *Page, 1)
	fetch := func() {
		out <- load(url)
	}
	go fetch()
	select {
	case p := <-out:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Near miss: the func value is reassigned, so which body runs is not known
// from its definition.
func okNamedWorkerReassigned(ctx context.Context, url string, cached *Page) (*Page, error) {
	out := make(chan *Page, 1)
	fetch := func() {
		out <- load(url)
	}
	if cached != nil {
		fetch = func() { out <- cached }
	}
	go fetch()
	select {
	case p := <-out:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Near miss: two resolvers listed in a slice literal, two buffer slots.
func okTwoResolvers(ctx context.Context) (string, error) {
	got := make(chan string, 2)
	for _, r := range []string{"primary", "backup"} {
		go func() {
			addr, err := query(r)
			if err == nil {
				got <- addr
			}
		}()
	}
	select {
	case a := <-got:
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Three resolvers listed, one buffer slot: the second success blocks.
func threeResolvers(ctx context.Context) (string, error) {
	got := make(chan string, 1)
	for _, r := range []string{"primary", "backup", "fallback"} {
		go func() {
			addr, err := query(r)
			if err == nil {
				got <- addr // want `sends on got from goroutines started in a loop block forever once threeResolvers stops receiving at .case <-ctx.Done\(\).`
			}
		}()
	}
	select {
	case a := <-got:
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// The workers report to a WaitGroup too, but the collector returns on the
// first error before it waits: the later results block on res.
func resizeAll(paths []string) ([]string, error) {
	var wg sync.WaitGroup
	res := make(chan string)
	errs := make(chan error, len(paths))
	for _, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := query(p)
			if err != nil {
				errs <- err
				return
			}
			res <- out // want `sends on res from goroutines started in a loop block forever once resizeAll stops receiving early`
		}()
	}
	var outs []string
	for range paths {
		select {
		case o := <-res:
			outs = append(outs, o)
		case err := <-errs:
			return nil, err
		}
	}
	wg.Wait()
	return outs, nil
}

// A channel made in each round for that round's one sender: the round that
// times out abandons its sender (Kubernetes' availability probe).
func probeEach(ctx context.Context, svcs []string, d time.Duration) map[string]int {
	status := map[string]int{}
	for _, s := range svcs {
		ch := make(chan int)
		go func() {
			ch <- compute(ctx) // want `the send on ch blocks forever once probeEach stops receiving at .case <-t.C.`
		}()
		t := time.NewTimer(d)
		select {
		case v := <-ch:
			status[s] = v
		case <-t.C:
			status[s] = -1
		}
		t.Stop()
	}
	return status
}

// Near-miss: one slot per round's channel, as the Kubernetes fix did.
func probeEachBuffered(ctx context.Context, svcs []string, d time.Duration) map[string]int {
	status := map[string]int{}
	for _, s := range svcs {
		ch := make(chan int, 1)
		go func() {
			ch <- compute(ctx)
		}()
		t := time.NewTimer(d)
		select {
		case v := <-ch:
			status[s] = v
		case <-t.C:
			status[s] = -1
		}
		t.Stop()
	}
	return status
}
