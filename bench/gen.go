// Package bench generates large, deterministic Go packages full of the
// patterns cancelcheck's checks look at, for the suite's benchmarks
// (bench_test.go). The package itself is only the generator.
package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the module path of a generated package.
const Module = "example.com/benchgen"

// prelude declares what the generated functions use.
const prelude = `package benchgen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Store is a context-bound dependency whose errors may carry cancellation.
type Store interface {
	Get(ctx context.Context, key string) (string, error)
	Put(ctx context.Context, key, value string) error
}

type result struct {
	val string
	err error
}

// fields are those of the per-file server types (server000, server001...):
// methods spread over many receivers, as in real packages.
type fields struct {
	ctx   context.Context
	store Store
	db    *sql.DB
	mu    sync.Mutex
	hits  map[string]int
}

var errNotFound = errors.New("not found")

func work(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Millisecond):
		return nil
	}
}

var (
	_ = fmt.Sprint
	_ = io.EOF
	_ = http.StatusOK
)
`

// templates are the generated functions; %[1]d is the function's index.
// Each names the pattern (and the check) it exercises; the "ok" ones are
// the correct shapes the checks must stay quiet on, and "plain" is code with
// no cancellation at all, most of a real package.
var templates = []struct{ name, src string }{
	{"swallowcancel: dropped error", `
func (s *server) touch%[1]d(ctx context.Context, key string) {
	_ = s.store.Put(ctx, key, "x")
}
`},
	{"swallowcancel: error turned into success", `
func (s *server) lookup%[1]d(ctx context.Context, key string) (string, error) {
	v, err := s.store.Get(ctx, key)
	if err != nil {
		return "", nil
	}
	return v, nil
}
`},
	{"swallowcancel: return nil from ctx.Done", `
func wait%[1]d(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return nil
	case v := <-ch:
		_ = v
		return nil
	}
}
`},
	{"swallowcancel: logged and continued over a collection", `
func (s *server) putAll%[1]d(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := s.store.Put(ctx, k, "v"); err != nil {
			fmt.Println("put failed:", err)
			continue
		}
	}
	return nil
}
`},
	{"foldedtimeout: %%v wrap", `
func (s *server) fetch%[1]d(ctx context.Context, key string) (string, error) {
	v, err := s.store.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("fetch %%s: %%v", key, err)
	}
	return v, nil
}
`},
	{"foldedtimeout: errors.New(err.Error()) and == context.Canceled", `
func (s *server) classify%[1]d(ctx context.Context, key string) error {
	_, err := s.store.Get(ctx, key)
	if err == context.Canceled {
		return errors.New("timeout")
	}
	if err != nil {
		return errors.New(err.Error())
	}
	return nil
}
`},
	{"retrycancel: time.Sleep backoff", `
func (s *server) retry%[1]d(ctx context.Context, key string) (string, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var v string
		v, err = s.store.Get(ctx, key)
		if err == nil {
			return v, nil
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
	return "", err
}
`},
	{"retrycancel: loop with no context check", `
func (s *server) poll%[1]d(ctx context.Context, key string) string {
	for {
		v, err := s.store.Get(ctx, key)
		if err == nil && v != "" {
			return v
		}
	}
}
`},
	{"detachedctx: context.Background in a handler", `
func (s *server) handle%[1]d(w http.ResponseWriter, r *http.Request) {
	ctx := context.Background()
	v, err := s.store.Get(ctx, r.URL.Path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	io.WriteString(w, v)
}
`},
	{"detachedctx: context.TODO with a parameter in reach", `
func (s *server) save%[1]d(ctx context.Context, key string) error {
	return s.store.Put(context.TODO(), key, "v")
}
`},
	{"untrackedgo: goroutine nothing joins", `
func (s *server) background%[1]d(ctx context.Context) {
	go func() {
		for {
			if err := work(ctx); err != nil {
				return
			}
		}
	}()
}
`},
	{"untrackedgo: fire-and-forget goroutine", `
func (s *server) notify%[1]d(ctx context.Context, key string) error {
	go func() {
		_ = s.store.Put(ctx, key, "notified")
	}()
	return nil
}
`},
	{"orphansend: result send after the receiver gave up", `
func (s *server) race%[1]d(ctx context.Context, key string) (string, error) {
	ch := make(chan result)
	go func() {
		v, err := s.store.Get(ctx, key)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.val, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
`},
	{"leaseleak: cancel not called on a path", `
func (s *server) bounded%[1]d(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	if key == "" {
		return errNotFound
	}
	defer cancel()
	return s.store.Put(ctx, key, "v")
}
`},
	{"leaseleak: timer not stopped", `
func wake%[1]d(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
`},
	{"leaseleak: rows not closed", `
func (s *server) count%[1]d(ctx context.Context) (int, error) {
	rows, err := s.db.QueryContext(ctx, "select 1")
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}
`},
	{"leaseleak: body not closed", `
func get%[1]d(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}
`},
	{"leaseleak: lock not released on a path", `
func (s *server) hit%[1]d(ctx context.Context, key string) error {
	s.mu.Lock()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.hits[key]++
	s.mu.Unlock()
	return nil
}
`},
	{"ok: wrapped with %%w and deferred cleanup", `
func (s *server) okFetch%[1]d(ctx context.Context, key string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	v, err := s.store.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("fetch %%s: %%w", key, err)
	}
	return v, nil
}
`},
	{"ok: joined goroutines and a buffered result", `
func (s *server) okFan%[1]d(ctx context.Context, keys []string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.store.Put(ctx, k, "v")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
`},
	{"ok: retry that watches the context", `
func (s *server) okRetry%[1]d(ctx context.Context, key string) (string, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		v, err := s.store.Get(ctx, key)
		if err == nil {
			return v, nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
		t.Reset(10 * time.Millisecond)
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
	}
}
`},
	{"ok: rows and body closed", `
func (s *server) okQuery%[1]d(ctx context.Context, url string) (int, error) {
	rows, err := s.db.QueryContext(ctx, "select 1")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
`},
	{"plain: no cancellation", `
type point%[1]d struct{ x, y int }

func (p point%[1]d) add(q point%[1]d) point%[1]d { return point%[1]d{p.x + q.x, p.y + q.y} }

func sum%[1]d(xs []int) (n int) {
	for i, x := range xs {
		if i%%2 == 0 {
			n += x
		} else {
			n -= x
		}
	}
	return n
}
`},
	{"plain: strings and maps", `
func words%[1]d(s string) map[string]int {
	m := make(map[string]int)
	start := -1
	for i, r := range s + " " {
		switch {
		case r == ' ' && start >= 0:
			m[s[start:i]]++
			start = -1
		case r != ' ' && start < 0:
			start = i
		}
	}
	return m
}
`},
}

// Patterns returns the names of the generated patterns, in order.
func Patterns() []string {
	out := make([]string, len(templates))
	for i, t := range templates {
		out[i] = t.name
	}
	return out
}

// Generate writes a module with one package into dir: files files of
// funcsPerFile functions each, cycling through the templates, so every
// pattern appears about files*funcsPerFile/len(templates) times. The output
// depends only on the arguments.
func Generate(dir string, files, funcsPerFile int) error {
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+Module+"\n\ngo 1.26\n"), 0o666); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "prelude.go"), []byte(prelude), 0o666); err != nil {
		return err
	}
	n := 0
	for f := range files {
		var b strings.Builder
		b.WriteString(`package benchgen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

var (
	_ context.Context
	_ *sql.DB
	_ = errors.New
	_ = fmt.Sprint
	_ = io.EOF
	_ = http.StatusOK
	_ sync.Mutex
	_ = time.Second
)
`)
		recv := fmt.Sprintf("server%03d", f)
		fmt.Fprintf(&b, "\ntype %s struct{ fields }\n", recv)
		for range funcsPerFile {
			t := templates[n%len(templates)]
			fmt.Fprintf(&b, "\n// %s\n", strings.ReplaceAll(t.name, "%%", "%"))
			fmt.Fprintf(&b, strings.ReplaceAll(t.src, "(s *server)", "(s *"+recv+")"), n)
			n++
		}
		name := filepath.Join(dir, fmt.Sprintf("gen%03d.go", f))
		if err := os.WriteFile(name, []byte(b.String()), 0o666); err != nil {
			return err
		}
	}
	return nil
}
