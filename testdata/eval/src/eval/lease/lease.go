// Package lease holds leaseleak cases: cancel functions, response bodies,
// rows, transactions, files, connections and locks that are not given back
// on some path, shaped after reports of `defer resp.Body.Close()` placed
// after a status check, rows left open on a Scan error, WithTimeout cancels
// skipped on early returns, and mutexes held across an early return.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"
)

type Repo struct {
	db     *sql.DB
	client *http.Client
	mu     sync.Mutex
	rw     sync.RWMutex
	cache  map[string]string
	cancel context.CancelFunc
	conn   net.Conn
}

// bug: leaseleak
func (r *Repo) Query(ctx context.Context, id string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	if id == "" {
		return "", errors.New("empty id")
	}
	var name string
	err := r.db.QueryRowContext(qctx, "SELECT name FROM t WHERE id = $1", id).Scan(&name)
	cancel()
	return name, err
}

// bug: leaseleak
func (r *Repo) Download(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// bug: leaseleak
func (r *Repo) Names(ctx context.Context) ([]string, error) {
	rows, err := r.db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	rows.Close()
	return out, rows.Err()
}

// bug: leaseleak
func (r *Repo) Put(key, val string) error {
	r.mu.Lock()
	if key == "" {
		return errors.New("empty key")
	}
	r.cache[key] = val
	r.mu.Unlock()
	return nil
}

// bug: leaseleak
func (r *Repo) Transfer(ctx context.Context, from, to string, amt int) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE acct SET bal = bal - $1 WHERE id = $2", amt, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE acct SET bal = bal + $1 WHERE id = $2", amt, to); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// bug: leaseleak
func ReadConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > 1<<20 {
		f.Close()
		return nil, errors.New("config too large")
	}
	b, err := io.ReadAll(f)
	f.Close()
	return b, err
}

// bug: leaseleak
func (r *Repo) Touch(ctx context.Context, id string) error {
	tctx, _ := context.WithTimeout(ctx, time.Second)
	_, err := r.db.ExecContext(tctx, "UPDATE t SET ts = now() WHERE id = $1", id)
	return err
}

// bug: leaseleak
func (r *Repo) Each(ctx context.Context, ids []string) error {
	for _, id := range ids {
		ictx, cancel := context.WithTimeout(ctx, time.Second)
		if _, err := r.db.ExecContext(ictx, "DELETE FROM t WHERE id = $1", id); err != nil {
			cancel()
			return err
		}
	}
	return nil
}

// bug: leaseleak
func (r *Repo) Insert(ctx context.Context, vals []string) error {
	stmt, err := r.db.PrepareContext(ctx, "INSERT INTO t(v) VALUES ($1)")
	if err != nil {
		return err
	}
	for _, v := range vals {
		if _, err := stmt.ExecContext(ctx, v); err != nil {
			return err
		}
	}
	return stmt.Close()
}

// bug: leaseleak
func Ping(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	return c.Close()
}

// bug: leaseleak
func (r *Repo) Lookup(key string) (string, bool) {
	r.rw.RLock()
	v, ok := r.cache[key]
	if !ok {
		return "", false
	}
	r.rw.RUnlock()
	return v, true
}

// Statuses fetches each URL for its status and never closes the bodies.
// (Written first with HEAD requests, whose responses have no body and give
// their connection back at once: a GET is what leaks.)
//
// bug: leaseleak
func (r *Repo) Statuses(ctx context.Context, urls []string) (map[string]int, error) {
	out := map[string]int{}
	for _, u := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.client.Do(req)
		if err != nil {
			return nil, err
		}
		out[u] = resp.StatusCode
	}
	return out, nil
}

// bug: leaseleak
func RunUntilSignal(parent context.Context, work func(context.Context) error) error {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt)
	if err := work(ctx); err != nil {
		return err
	}
	stop()
	return nil
}

// bug: leaseleak
func (r *Repo) Watch(ctx context.Context, ch <-chan string) error {
	wctx, cancel := context.WithCancel(ctx)
	for {
		select {
		case <-wctx.Done():
			return wctx.Err()
		case k, ok := <-ch:
			if !ok {
				cancel()
				return nil
			}
			if k == "" {
				return errors.New("empty key")
			}
		}
	}
}

// bug: leaseleak
func (r *Repo) Conn(ctx context.Context) (int, error) {
	c, err := r.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil {
		return 0, err
	}
	return n, c.Close()
}

// ---- near-misses ----

// ok: leaseleak
func (r *Repo) QueryOK(ctx context.Context, id string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var name string
	err := r.db.QueryRowContext(qctx, "SELECT name FROM t WHERE id = $1", id).Scan(&name)
	return name, err
}

// ok: leaseleak
func (r *Repo) DownloadOK(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// ok: leaseleak
func (r *Repo) NamesOK(ctx context.Context) ([]string, error) {
	rows, err := r.db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// ok: leaseleak
func (r *Repo) PutOK(key, val string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key == "" {
		return errors.New("empty key")
	}
	r.cache[key] = val
	return nil
}

// ok: leaseleak
func (r *Repo) TransferOK(ctx context.Context, from, to string, amt int) (err error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, "UPDATE acct SET bal = bal - $1 WHERE id = $2", amt, from); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, "UPDATE acct SET bal = bal + $1 WHERE id = $2", amt, to); err != nil {
		return err
	}
	return tx.Commit()
}

// ok: leaseleak
func (r *Repo) WithDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// ok: leaseleak
func (r *Repo) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	_ = ctx
}

// ok: leaseleak
func (r *Repo) Stop() {
	if r.cancel != nil {
		r.cancel()
	}
}

// ok: leaseleak
func OpenLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ok: leaseleak
func (r *Repo) EachOK(ctx context.Context, ids []string) error {
	for _, id := range ids {
		ictx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := r.db.ExecContext(ictx, "DELETE FROM t WHERE id = $1", id)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// ok: leaseleak
func (r *Repo) Dial(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	r.conn = c
	return nil
}

// ok: leaseleak
func (r *Repo) Close() error {
	if r.conn != nil {
		return r.conn.Close()
	}
	return nil
}

// ok: leaseleak
func (r *Repo) LookupOK(key string) (string, bool) {
	r.rw.RLock()
	defer r.rw.RUnlock()
	v, ok := r.cache[key]
	return v, ok
}

// ok: leaseleak
func (r *Repo) Serve(ctx context.Context, l net.Listener, handle func(net.Conn)) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			handle(c)
		}()
	}
}

// ok: leaseleak
func (r *Repo) Exists(ctx context.Context, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, err
}

// ok: leaseleak
func (r *Repo) First(ctx context.Context) (string, error) {
	rows, err := r.db.QueryContext(ctx, "SELECT name FROM t LIMIT 1")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return "", sql.ErrNoRows
	}
	var n string
	err = rows.Scan(&n)
	return n, err
}

// ok: leaseleak
func RunUntilSignalOK(parent context.Context, work func(context.Context) error) error {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt)
	defer stop()
	return work(ctx)
}

// ok: leaseleak
func (r *Repo) WatchOK(ctx context.Context, ch <-chan string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for {
		select {
		case <-wctx.Done():
			return wctx.Err()
		case k, ok := <-ch:
			if !ok {
				return nil
			}
			if k == "" {
				return errors.New("empty key")
			}
		}
	}
}
