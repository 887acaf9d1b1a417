package a

import (
	"context"
	"database/sql"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"time"

	"golang.org/x/sync/errgroup"
)

// errgroup workers run inside the caller's lifetime.
func FetchAll(ctx context.Context, urls []string) error {
	g, _ := errgroup.WithContext(ctx)
	for _, u := range urls {
		g.Go(func() error {
			return fetch(context.Background(), u) // want `context.Background\(\) in a function literal in FetchAll cuts off ctx`
		})
	}
	return g.Wait()
}

// A subprocess that outlives the request.
func Convert(w http.ResponseWriter, r *http.Request) {
	cmd := exec.CommandContext(context.Background(), "convert", "in.png", "out.jpg") // want `cuts off r.Context\(\): work under exec.CommandContext`
	_ = cmd.Run()
}

// A transaction begun on TODO.
func (s *Store) Transfer(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(context.TODO(), nil) // want `context.TODO\(\) in Transfer cuts off ctx: work under db.BeginTx`
	if err != nil {
		return err
	}
	return tx.Commit()
}

type UnaryHandler func(ctx context.Context, req interface{}) (interface{}, error)

// An interceptor that drops the incoming deadline.
func Intercept(ctx context.Context, req interface{}, handler UnaryHandler) (interface{}, error) {
	return handler(context.Background(), req) // want `context.Background\(\) in Intercept cuts off ctx: work under handler`
}

// A deadline on a fresh root.
func WithDeadline(ctx context.Context, s *Store) error {
	dctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Second)) // want `cuts off ctx`
	defer cancel()
	return s.Save(dctx, "x")
}

// A non-blocking Done check that falls through while ctx is alive.
func Poll(ctx context.Context, s *Store) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	return s.Save(context.Background(), "poll") // want `cuts off ctx`
}

// --- negatives ---

// Comparing against a root is not using it.
func IsRoot(ctx context.Context) bool { return ctx == context.Background() }

// A base context for a server: returned from a literal, owned by the server.
func NewHTTPServer(ctx context.Context) *http.Server {
	return &http.Server{BaseContext: func(net.Listener) context.Context { return context.Background() }}
}

// A new lifetime for a subsystem handed to a goroutine.
func StartLoop(ctx context.Context, s *Store) context.CancelFunc {
	lctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-lctx.Done()
	}()
	go s.Save(lctx, "loop")
	return cancel
}

// No ctx in reach: a method without context parameters on a type without a
// context field.
func (s *Store) Flush() error { return s.Save(context.Background(), "flush") }

// A log record without the request's values.
func LogIt(ctx context.Context, lg *slog.Logger) {
	lg.InfoContext(context.Background(), "hello") // want `context.Background\(\) passed to lg.InfoContext in LogIt drops the values of ctx`
}

type SQLTx struct {
	ctx context.Context
	s   *Store
}

func (tx *SQLTx) ExecContext(ctx context.Context, q string) error { return tx.s.Save(ctx, q) }

// The context-less form of an API: detached by contract (database/sql's
// Tx.Exec shape).
func (tx *SQLTx) Exec(q string) error { return tx.ExecContext(context.Background(), q) }

// Not the context-less form of the callee.
func (tx *SQLTx) Run(q string) error {
	return tx.ExecContext(context.Background(), q) // want `context.Background\(\) in Run cuts off tx.ctx`
}

type evicting struct {
	onEvict func(string)
	s       *Store
}

// A callback stored for later runs outside this call's lifetime.
func (e *evicting) Configure(ctx context.Context) {
	e.onEvict = func(k string) {
		_ = e.s.Save(context.Background(), k)
	}
}

type Client struct{}

func NewClient(ctx context.Context) *Client { return &Client{} }

type Holder struct{ c *Client }

// A client for the holder's lifetime, built in a request path and stored.
func (h *Holder) Ensure(ctx context.Context) {
	if h.c == nil {
		c := NewClient(context.Background())
		h.c = c
	}
}

// A client used only for this request.
func (h *Holder) Once(ctx context.Context) *Client {
	c := NewClient(context.Background()) // want `context.Background\(\) in Once cuts off ctx`
	_ = c
	return nil
}

// A request built on a fresh root in a function that returns errors.
func (h *Holder) Proxy(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil) // want `context.Background\(\) in Proxy cuts off ctx`
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// heartbeat's context is only ever a cancel of Background: no values to
// lose in its log records.
func heartbeat(ctx context.Context, lg *slog.Logger) {
	lg.InfoContext(context.Background(), "beat")
	<-ctx.Done()
}

func startHeartbeat(lg *slog.Logger) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	go heartbeat(ctx, lg)
	return cancel
}

// logValued is given a context with values by one caller.
func logValued(ctx context.Context, lg *slog.Logger) {
	lg.InfoContext(context.Background(), "beat") // want `context.Background\(\) passed to lg.InfoContext in logValued drops the values of ctx: the record loses whatever the logger reads from it`
}

type traceKey struct{}

func startValued(lg *slog.Logger) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), traceKey{}, "t"))
	defer cancel()
	logValued(ctx, lg)
}
