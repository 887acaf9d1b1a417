package a

import (
	"context"
	"database/sql"
	"log"
	"net/http"
	"time"
)

type Store struct{ db *sql.DB }

func (s *Store) Save(ctx context.Context, v string) error { return nil }

func (s *Store) Rollback(ctx context.Context) error { return nil }

func (s *Store) AuditLog(ctx context.Context, msg string) {}

func fetch(ctx context.Context, url string) error { return nil }

// --- positives ---

// The handler shape of many real reports: a per-request timeout built on
// Background, so a client that goes away does not stop the query.
func Handler(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // want `context.Background\(\) in a function literal in Handler cuts off r.Context\(\): work under s.Save keeps running`
		defer cancel()
		if err := s.Save(ctx, r.URL.Path); err != nil {
			http.Error(w, err.Error(), 500)
		}
	}
}

// An RPC method that ignores its ctx parameter.
func (s *Store) Put(ctx context.Context, v string) error {
	return s.Save(context.TODO(), v) // want `context.TODO\(\) in Put cuts off ctx`
}

// The ctx parameter is never used: still the caller's.
func (s *Store) PutUnused(ctx context.Context, v string) error {
	return s.Save(context.Background(), v) // want `context.Background\(\) in PutUnused cuts off ctx`
}

// The parameter reassigned to a fresh root.
func Reassign(ctx context.Context) error {
	ctx = context.Background() // want `context.Background\(\) in Reassign cuts off ctx`
	return fetch(ctx, "x")
}

// Through a variable declared with var.
func VarDecl(ctx context.Context) error {
	var c = context.Background() // want `context.Background\(\) in VarDecl cuts off ctx`
	return fetch(c, "x")
}

type worker struct {
	ctx context.Context
	s   *Store
}

// A receiver field context in reach.
func (w *worker) step() error {
	return w.s.Save(context.Background(), "step") // want `context.Background\(\) in step cuts off w.ctx`
}

// A closure run synchronously inside a function with a context.
func Each(ctx context.Context, items []string) {
	do := func(it string) {
		_ = fetch(context.Background(), it) // want `context.Background\(\) in a function literal in Each cuts off ctx`
	}
	for _, it := range items {
		do(it)
	}
}

// A goroutine that uses the spawner's context but also makes a fresh one.
func Fanout(ctx context.Context, urls []string) {
	for _, u := range urls {
		go func(u string) {
			if ctx.Err() != nil {
				return
			}
			_ = fetch(context.Background(), u) // want `context.Background\(\) in a function literal in Fanout cuts off ctx`
		}(u)
	}
}

// WithValue on Background: values kept, cancellation lost.
func WithVal(ctx context.Context) error {
	c := context.WithValue(context.Background(), key{}, 1) // want `context.Background\(\) in WithVal cuts off ctx`
	return fetch(c, "x")
}

type key struct{}

// A deferred rollback: detached on purpose, but it should keep the values.
func Tx(ctx context.Context, s *Store) (err error) {
	defer func() {
		if err != nil {
			_ = s.Rollback(context.Background()) // want `context.Background\(\) for the cleanup call s.Rollback drops the values of ctx`
		}
	}()
	return s.Save(ctx, "x")
}

// A cleanup-named call outside a defer.
func Audit(ctx context.Context, s *Store) error {
	err := s.Save(ctx, "x")
	s.AuditLog(context.Background(), "saved") // want `context.Background\(\) for the cleanup call s.AuditLog drops the values of ctx`
	return err
}

// Select whose Done case returns: ctx is alive below it.
func SelectReturns(ctx context.Context, ch chan int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	}
	return fetch(context.Background(), "x") // want `context.Background\(\) in SelectReturns cuts off ctx`
}

// http.NewRequestWithContext on Background inside a handler.
func Proxy(w http.ResponseWriter, r *http.Request) {
	req, _ := http.NewRequestWithContext(context.Background(), "GET", "http://backend/", nil) // want `context.Background\(\) in Proxy cuts off r.Context\(\): work under http.NewRequestWithContext`
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
}

// --- negatives ---

// No context in reach.
func NoContext(s *Store) error { return s.Save(context.Background(), "x") }

// The context parameter is blank.
func Blank(_ context.Context, s *Store) error { return s.Save(context.Background(), "x") }

// WithoutCancel: deliberate detachment.
func Deliberate(ctx context.Context, s *Store) {
	defer s.AuditLog(context.WithoutCancel(ctx), "done")
}

// Documented detachment.
func Documented(ctx context.Context, s *Store) error {
	return s.Save(context.Background(), "x") // detached: the write must land even if the client leaves
}

// Documented on the line above.
func DocumentedAbove(ctx context.Context, s *Store) error {
	// detached: billing must complete once started
	return s.Save(context.Background(), "x")
}

// Empty reason: does not count.
func EmptyReason(ctx context.Context, s *Store) error {
	return s.Save(context.Background(), "x") // detached: // want `cuts off ctx`
}

// Directive.
func Directive(ctx context.Context, s *Store) error {
	//cancelcheck:ignore detachedctx the write must land even if the client leaves
	return s.Save(context.Background(), "x")
}

// Stored for a long-lived owner.
type Server struct {
	ctx    context.Context
	cancel context.CancelFunc
	s      *Store
}

func (srv *Server) Start(ctx context.Context) {
	srv.ctx, srv.cancel = context.WithCancel(context.Background())
}

var global = context.Background()

func NewServer(ctx context.Context, s *Store) *Server {
	return &Server{ctx: context.Background(), s: s}
}

// A fresh root returned to the caller.
func Root(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// nil fallback assigned.
func Fallback(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return fetch(ctx, "x")
}

// Goroutine handed a fresh root.
func Spawn(ctx context.Context, s *Store) {
	go s.Save(context.Background(), "bg")
}

// A background worker literal that never looks at the spawner's context.
func StartWorker(ctx context.Context, s *Store) {
	go func() {
		for range time.Tick(time.Minute) {
			_ = s.Save(context.Background(), "tick")
		}
	}()
}

// Post-request work in a goroutine, detached on purpose.
func Enqueue(w http.ResponseWriter, r *http.Request, s *Store) {
	go func() {
		_ = s.Save(context.Background(), "async")
	}()
	w.WriteHeader(http.StatusAccepted)
}

// Graceful shutdown after the context ended.
func Serve(ctx context.Context, srv *http.Server) error {
	go srv.ListenAndServe()
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// Shutdown in the Done case.
func ServeSelect(ctx context.Context, srv *http.Server, errc chan error) error {
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		return err
	}
}

// Select whose Done case falls through.
func ServeFallthrough(ctx context.Context, srv *http.Server, errc chan error) error {
	select {
	case <-ctx.Done():
	case <-errc:
	}
	return srv.Shutdown(context.Background())
}

// Inside if ctx.Err() != nil.
func AfterErr(ctx context.Context, s *Store) error {
	if ctx.Err() != nil {
		return s.Save(context.Background(), "after")
	}
	return nil
}

// Constructor result stored in a field: owned by the server.
type Pool struct{}

func NewPool(ctx context.Context) *Pool { return &Pool{} }

type App struct{ pool *Pool }

func (a *App) Lazy(ctx context.Context) {
	if a.pool == nil {
		a.pool = NewPool(context.Background())
	}
}

// Unused fresh context.
func Unused(ctx context.Context) {
	_ = context.Background()
	log.Println("x")
}

// Main-like: init.
func init() {
	_ = fetch(context.Background(), "init")
}
