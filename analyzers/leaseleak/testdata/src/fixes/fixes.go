package fixes

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

func work(ctx context.Context) error { return nil }

func cancelEarly(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second) // want `the cancel function of context.WithTimeout is not called`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	err := work(ctx)
	cancel()
	return err
}

func discarded(ctx context.Context) error {
	cctx, _ := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is discarded`
	return work(cctx)
}

func status(c *http.Client, req *http.Request) ([]byte, error) {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func tx(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil) // want `the transaction tx from \(\*sql.DB\).BeginTx is not committed or rolled back`
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE a"); err != nil {
		return err
	}
	return tx.Commit()
}

// Returned on success: release on the leaking path instead.
func openChecked(path string) (*os.File, error) {
	f, err := os.Open(path) // want `the file f from os.Open is not closed on the path through the return when err != nil and one other return`
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("%s is empty", path)
	}
	return f, nil
}

// Opened in a loop: a defer would be wrong, close at each exit of the body.
func concat(w io.Writer, paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p) // want `the file f from os.Open is not closed on the path through the return when err != nil and one other return, nor before the loop acquires the next one`
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	return nil
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add(ctx context.Context, d int) error {
	c.mu.Lock() // want `c.mu is locked here but the mutex is not unlocked on the path through the return when ctx.Err\(\) != nil`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.n += d
	c.mu.Unlock()
	return nil
}

// The first file leaks when the second open fails.
func pair(a, b string) error {
	f, err := os.Open(a) // want `the file f from os.Open is not closed on the path through the return when err != nil and one other return`
	if err != nil {
		return err
	}
	g, err := os.Open(b)
	if err != nil {
		return err
	}
	defer g.Close()
	fmt.Println(f.Name(), g.Name())
	return nil
}

// withDefault adds a timeout only when ctx has no deadline, and returns a
// nil cancel function otherwise.
func withDefault(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, nil
	}
	return context.WithTimeout(ctx, time.Second)
}

// The cancel function may be nil: calling it unguarded would panic, so no
// fix is offered.
func maybeNil(ctx context.Context) error {
	ctx, cancel := withDefault(ctx) // want `the cancel function of fixes.withDefault is not called on the path through the return`
	if err := work(ctx); err != nil {
		return err
	}
	if cancel != nil {
		cancel()
	}
	return nil
}

// Rows lent to a scan callback inside `for rows.Next()`, which closes them
// when it ends: both early returns leak, and one fix covers both.
func collectRows[T any](ctx context.Context, db *sql.DB, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, "select v from t") // want `the rows rows from \(\*sql.DB\).QueryContext are not closed on the path through the return when err != nil and one other return`
	if err != nil {
		return nil, err
	}
	var out []T
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// logSink keeps the file it writes to; nothing closes it.
type logSink struct{ f *os.File }

// The file is kept by the sink the function returns: deferring its Close
// would close what the sink writes to, so no fix is offered.
func openSink(path string) (*logSink, error) {
	f, err := os.Create(path) // want `the file f from os.Create is stored in s.f, which nothing in this package closes \(logSink has no method that releases it\)`
	if err != nil {
		return nil, err
	}
	s := &logSink{}
	s.f = f
	return s, nil
}

type session struct{ conn io.ReadWriteCloser }

func handshake(rw io.ReadWriteCloser) (*session, error) { return &session{conn: rw}, nil }

// The file goes into the session handshake returns: no fix either.
func openSession(path string) (*session, error) {
	f, err := os.Open(path) // want `the file f from os.Open is not closed on the path through the return`
	if err != nil {
		return nil, err
	}
	s, err := handshake(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

type remoteLock struct{}

func (*remoteLock) Unlock(ctx context.Context) error { return nil }

func lockRemote(ctx context.Context, key string) (*remoteLock, error) { return &remoteLock{}, nil }

func withRemoteLock(ctx context.Context, key string) error {
	l, err := lockRemote(ctx, key)
	if err != nil {
		return err
	}
	defer l.Unlock(ctx) // want `the deferred Unlock is given ctx`
	return work(ctx)
}
