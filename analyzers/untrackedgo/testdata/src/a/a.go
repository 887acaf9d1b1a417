package a

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/scope"
	"golang.org/x/sync/errgroup"
)

type Request struct{ ID string }
type Result struct{ N int }

func fetch(ctx context.Context, id string) (Result, error) { return Result{}, ctx.Err() }
func store(ctx context.Context, r Result) error            { return ctx.Err() }
func process(string)                                       {}
func cleanup()                                             {}

// ---- positives ----

// Modeled on mcp-go's SSE handleMessage: background work with the request's
// context, which net/http cancels when the handler returns.
func handleMessage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	w.WriteHeader(http.StatusAccepted)
	go func() { // want `goroutine uses the context ctx of handleMessage, which can return without waiting for it`
		res, _ := fetch(ctx, "m")
		_ = store(ctx, res)
	}()
}

// Writing the response from a goroutine after the handler returned.
func stream(w http.ResponseWriter, r *http.Request) {
	go func() { // want `goroutine writes to w after stream may have returned`
		w.Write([]byte("late"))
	}()
}

type auditHandler struct{ log *log.Logger }

func (h *auditHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	go h.audit(r) // want `goroutine uses the request r after ServeHTTP may have returned`
	w.WriteHeader(http.StatusOK)
}

func (h *auditHandler) audit(r *http.Request) { h.log.Println(r.URL.Path) }

// Results written into the owner's variables, then returned before the
// goroutines finish.
func fetchAll(ctx context.Context, ids []string) []Result {
	var mu sync.Mutex
	var out []Result
	for _, id := range ids {
		go func() { // want `goroutine writes out, a variable of fetchAll, which can return without waiting for it`
			r, err := fetch(ctx, id)
			if err != nil {
				return
			}
			mu.Lock()
			out = append(out, r)
			mu.Unlock()
		}()
	}
	return out
}

type Svc struct{}

func (s *Svc) audit(ctx context.Context, req *Request)    { _ = store(ctx, Result{}) }
func (s *Svc) do(ctx context.Context, req *Request) error { return nil }

// Fire-and-forget work with the caller's context: canceled once Handle
// returns, so the audit record is usually lost.
func (s *Svc) Handle(ctx context.Context, req *Request) error {
	go s.audit(ctx, req) // want `goroutine uses the context ctx of Handle`
	return s.do(ctx, req)
}

// An early return skips the Wait (kubernetes-style error path).
func syncAll(ctx context.Context, ids []string) error {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() { // want `goroutine uses the context ctx of syncAll`
			defer wg.Done()
			fetch(ctx, id)
		}()
		if id == "" {
			return errors.New("empty id")
		}
	}
	wg.Wait()
	return nil
}

// The WaitGroup is skipped on the error path: the goroutine touches no
// owner state, but the owner meant to wait for it.
func convertAll(paths []string) error {
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Add(1)
		go func() { // want `goroutine counted in wg outlives convertAll, which can return without wg.Wait`
			defer wg.Done()
			process(p)
		}()
	}
	if len(paths) > 100 {
		return errors.New("too many")
	}
	wg.Wait()
	return nil
}

// Goroutines per element that nobody waits for.
func processAll(items []string) {
	for _, it := range items {
		go process(it) // want `goroutines started for each element of the loop are never waited for`
	}
}

// A derived context the owner does not cancel on return: the caller's
// cancellation still cuts the work off after the owner returned.
func withValue(ctx context.Context) error {
	ctx = context.WithValue(ctx, "k", "v")
	go func() { // want `goroutine uses the context ctx of withValue`
		fetch(ctx, "x")
	}()
	return nil
}

// Add inside the goroutine it counts.
func addInside(ids []string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		go func() {
			wg.Add(1) // want `wg.Add inside the goroutine it counts races with wg.Wait`
			defer wg.Done()
			process(id)
		}()
	}
	wg.Wait()
}

// The error of a goroutine written to the owner's named result.
func firstErr(ctx context.Context) (err error) {
	go func() { // want `goroutine writes err, a variable of firstErr`
		_, err = fetch(ctx, "a")
	}()
	return err
}

// ---- near misses ----

func okWaitGroup(ctx context.Context, ids []string) []Result {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []Result
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _ := fetch(ctx, id)
			mu.Lock()
			out = append(out, r)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func okDeferWait(ctx context.Context, ids []string) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fetch(ctx, id)
		}()
		if id == "" {
			return errors.New("empty")
		}
	}
	return nil
}

func okErrgroup(ctx context.Context, ids []string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, id := range ids {
		g.Go(func() error {
			_, err := fetch(ctx, id)
			return err
		})
	}
	return g.Wait()
}

// errgroup.Group.Go spawns a goroutine it tracks: not a fire-and-forget
// spawner, even though its goroutine's Done is in a helper method.
func okErrgroupWrites(ctx context.Context, ids []string) ([]Result, error) {
	var g errgroup.Group
	out := make([]Result, len(ids))
	for i, id := range ids {
		g.Go(func() error {
			r, err := fetch(ctx, id)
			out[i] = r
			return err
		})
	}
	err := g.Wait()
	return out, err
}

func okScope(ctx context.Context, ids []string) error {
	sc, _ := scope.New(ctx)
	for _, id := range ids {
		sc.Go(id, func(ctx context.Context) error {
			_, err := fetch(ctx, id)
			return err
		})
	}
	return sc.Wait()
}

func okDone(ctx context.Context) error {
	done := make(chan struct{})
	var res Result
	go func() {
		defer close(done)
		res, _ = fetch(ctx, "x")
	}()
	<-done
	return store(ctx, res)
}

func okResultChan(ctx context.Context, ids []string) error {
	errc := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			_, err := fetch(ctx, id)
			errc <- err
		}()
	}
	for range ids {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

func main2() {}

// Watchers: they end with the context.
func okWatcher(ctx context.Context, c net.Conn) {
	go func() {
		<-ctx.Done()
		c.Close()
	}()
}

// A worker loop bound to the context.
func okStart(ctx context.Context, in <-chan string) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-in:
				process(s)
			}
		}
	}()
}

// A long-lived owner with a Close method.
type Cache struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

func NewCache(ctx context.Context) *Cache {
	c := &Cache{stop: make(chan struct{})}
	go c.janitor(ctx)
	return c
}

func (c *Cache) janitor(ctx context.Context) { fetch(ctx, "gc") }
func (c *Cache) Close() error                { close(c.stop); c.wg.Wait(); return nil }

// A method of a closable type is no excuse: Close does not wait for this
// goroutine, and it uses the caller's context.
func (c *Cache) Refresh(ctx context.Context) {
	go c.janitor(ctx) // want `goroutine uses the context ctx of Refresh`
}

// Tracked by the WaitGroup that Close waits for.
func (c *Cache) RefreshTracked(ctx context.Context) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.janitor(ctx)
	}()
}

// Bound to the owner's stop channel, but what it runs once stop is closed
// is the janitor, which RefreshTracked counts in wg: Close's Wait can
// return before it is done.
func (c *Cache) Watch(ctx context.Context) {
	go func() { // want `goroutine started by Watch is not counted in wg, which the type's other goroutines are counted in and its shutdown waits on: it runs janitor`
		<-c.stop
		c.janitor(context.WithoutCancel(ctx))
	}()
}

// A server accept loop: not a collection loop.
func serve(l net.Listener) error {
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		go handleConn(conn)
	}
}

func handleConn(net.Conn) {}

// Dispatch over a channel.
func dispatch(jobs <-chan string) {
	for j := range jobs {
		go process(j)
	}
}

// Racers on a context the owner cancels when it returns (net.dialParallel):
// they are bound to the owner's return.
func okRacers(ctx context.Context, addrs []string) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := func(ctx context.Context, a string) { fetch(ctx, a) }
	go start(ctx, addrs[0])
	go func() { fetch(ctx, addrs[1]) }()
	return Result{}, nil
}

// An Add in a goroutine that counts the goroutine it starts next.
func okAcceptLoop(l net.Listener) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				handleConn(c)
			}()
		}
	}()
	wg.Wait()
}

// Fire-and-forget with no owner state.
func okLog(msg string) {
	go log.Println(msg)
}

// A detached context is not the owner's.
func okDetached(ctx context.Context) {
	bg := context.WithoutCancel(ctx)
	go func() {
		fetch(bg, "x")
	}()
}

// The handler waits for its goroutine.
func okHandlerWaits(w http.ResponseWriter, r *http.Request) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fetch(r.Context(), "x")
	}()
	wg.Wait()
	w.WriteHeader(http.StatusOK)
}

// The handler only watches the request's context.
func okHandlerWatch(w http.ResponseWriter, r *http.Request) {
	go func() {
		<-r.Context().Done()
		cleanup()
	}()
}

// Add before the go statement.
func okAddBefore(ids []string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			process(id)
		}()
	}
	wg.Wait()
}

// A goroutine that declares its own WaitGroup.
func okOwnWG() {
	go func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done() }()
		wg.Wait()
	}()
}

// The owner blocks until the context is done: the goroutine's context is
// done too.
func okRunUntilDone(ctx context.Context) error {
	go fetch(ctx, "x")
	<-ctx.Done()
	return ctx.Err()
}

// Locals the goroutine declares itself.
func okOwnLocals(ctx context.Context) {
	go func() {
		n := 0
		for i := 0; i < 3; i++ {
			n += i
		}
		_ = n
		<-ctx.Done()
	}()
}

// The owner never returns.
func okForever(ctx context.Context) {
	go fetch(ctx, "x")
	select {}
}

var _ = time.Second

// The wait is handed to the returned stop function (runtime's applyGCLoad).
func startLoad(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// A closer goroutine waits and closes the results the owner ranges over.
func closer(ids []string) int {
	var wg sync.WaitGroup
	ch := make(chan int)
	for range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch <- 1
		}()
	}
	go func() {
		wg.Wait()
		close(ch)
	}()
	n := 0
	for v := range ch {
		n += v
	}
	return n
}

type group struct{ wg sync.WaitGroup }

// The receiver's WaitGroup: another method waits.
func (g *group) spawn(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
}

type Response struct{}

// A request handed to a goroutine by a non-handler (net/http's file
// transport): data, not the owner's context.
func roundTrip(req *http.Request, h http.Handler, resc chan *Response) (*Response, error) {
	go func() {
		h.ServeHTTP(nil, req)
	}()
	return <-resc, nil
}

// An accept loop serving streams on the server's lifetime context.
func serveStreams(ctx context.Context, accept func(context.Context) (string, error)) {
	for {
		s, err := accept(ctx)
		if err != nil {
			return
		}
		go func() {
			fetch(ctx, s)
		}()
	}
}

type Conn interface {
	Close() error
}

type pipeServer struct{ serve func(context.Context, Conn) }

// A constructor of a closable interface value (x/tools jsonrpc2 servertest).
func (s *pipeServer) Connect(ctx context.Context, c Conn) Conn {
	go s.serve(ctx, c)
	return c
}

// ---- cancel functions stored by a registry ----

type runner struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	stop    context.CancelFunc
}

// Near miss: the job's cancel is kept in the runner's registry, which
// stops the job later (Kubernetes-style controllers keep a map of
// per-object workers).
func (rn *runner) startJob(ctx context.Context, id string, work func(context.Context)) {
	jctx, cancel := context.WithCancel(ctx)
	rn.mu.Lock()
	rn.cancels[id] = cancel
	rn.mu.Unlock()
	go work(jctx)
}

// Near miss: the cancel is stored in a field of the receiver.
func (rn *runner) startLoop(ctx context.Context) {
	lctx, cancel := context.WithCancel(ctx)
	rn.stop = cancel
	go func() {
		for {
			if err := store(lctx, Result{}); err != nil {
				return
			}
		}
	}()
}

// Near miss: the caller's registry map holds the cancel.
func startInto(ctx context.Context, jobs map[string]context.CancelFunc, id string) {
	jctx, cancel := context.WithCancel(ctx)
	jobs[id] = cancel
	go func() { _ = store(jctx, Result{}) }()
}

// The cancel goes into a map the function makes itself and drops: nobody
// can stop the job, and it still uses the caller's context.
func startLocal(ctx context.Context, id string) {
	jobs := map[string]context.CancelFunc{}
	jctx, cancel := context.WithCancel(ctx)
	jobs[id] = cancel
	go func() { _ = store(jctx, Result{}) }() // want `goroutine uses the context jctx of startLocal, which can return without waiting for it`
}

// The goroutine body is a func value bound once to a local.
func namedSync(ctx context.Context, ids []string) {
	push := func() {
		_ = store(ctx, Result{N: len(ids)})
	}
	go push() // want `goroutine uses the context ctx of namedSync, which can return without waiting for it`
}

// Near miss: the named body reports to a WaitGroup that is waited for.
func okNamedSync(ctx context.Context, ids []string) {
	var wg sync.WaitGroup
	wg.Add(1)
	push := func() {
		defer wg.Done()
		_ = store(ctx, Result{N: len(ids)})
	}
	go push()
	wg.Wait()
}

type job struct {
	id   string
	stop context.CancelFunc
}

type scheduler struct {
	jobs map[string]*job
}

// Near miss: the cancel travels in a job record that the scheduler keeps.
func (s *scheduler) launch(ctx context.Context, id string) {
	jctx, cancel := context.WithCancel(ctx)
	j := &job{id: id, stop: cancel}
	s.jobs[id] = j
	go func() { _ = store(jctx, Result{}) }()
}

// The job record is built but never kept: nothing can stop the goroutine.
func (s *scheduler) launchLost(ctx context.Context, id string) {
	jctx, cancel := context.WithCancel(ctx)
	j := &job{id: id, stop: cancel}
	_ = j
	go func() { _ = store(jctx, Result{}) }() // want `goroutine uses the context jctx of launchLost, which can return without waiting for it`
}

// The first statement of a goroutine adds for work counted elsewhere: the
// Wait may still come first.
func addFirst(jobs chan<- int, n int) {
	var wg sync.WaitGroup
	go func() {
		wg.Add(n) // want `wg.Add as the first statement of a new goroutine races with wg.Wait`
		for i := range n {
			jobs <- i
		}
	}()
	wg.Wait()
}

// Adding later in the goroutine, for work it hands on, is the producer's
// business (vet's rule too).
func addLater(jobs chan<- int, n int, ready func()) {
	var wg sync.WaitGroup
	go func() {
		ready()
		wg.Add(n)
		for i := range n {
			jobs <- i
		}
	}()
	wg.Wait()
}

type startConfig struct{ wg *sync.WaitGroup }

func groupOf(c startConfig) *sync.WaitGroup {
	if c.wg == nil {
		return new(sync.WaitGroup)
	}
	return c.wg
}

// startServing counts its server in the WaitGroup its caller handed over
// in the configuration and returns: the caller waits on it, as for a
// parameter.
func startServing(c startConfig, paths []string) error {
	wg := groupOf(c)
	if len(paths) == 0 {
		return errors.New("nothing to serve")
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		process(paths[0])
	}()
	if len(paths) > 100 {
		return errors.New("too many")
	}
	return nil
}

// startOwn makes its WaitGroup itself and returns without waiting on one
// path.
func startOwn(paths []string) error {
	wg := new(sync.WaitGroup)
	wg.Add(1)
	go func() { // want `goroutine counted in wg outlives startOwn, which can return without wg.Wait`
		defer wg.Done()
		process(paths[0])
	}()
	if len(paths) > 100 {
		return errors.New("too many")
	}
	wg.Wait()
	return nil
}

type tripper interface {
	RoundTrip(ctx context.Context, subject string) ([]byte, error)
}

// requestBuffered reports an error and then the (empty) reply, each into
// a buffer with room: its last words, so a caller that times out abandons
// them and nothing blocks.
func requestBuffered(ctx context.Context, rt tripper, subject string, timeout time.Duration) ([]byte, error) {
	replies := make(chan []byte, 1)
	errs := make(chan error, 1)
	go func() {
		reply, err := rt.RoundTrip(ctx, subject)
		if err != nil {
			errs <- err
		}
		replies <- reply
	}()
	select {
	case r := <-replies:
		return r, nil
	case err := <-errs:
		return nil, err
	case <-time.After(timeout):
		return nil, errors.New("timeout")
	}
}
