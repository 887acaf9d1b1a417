package handoff

import (
	"context"
	"io"
	"os"
	"sync"
)

// A plain struct with no release method does not own the file.
type meta struct {
	f    *os.File
	size int64
}

func stat(path string) (int64, error) {
	f, err := os.Open(path) // want `the file f from os.Open is not closed on the path through the return`
	if err != nil {
		return 0, err
	}
	m := meta{f: f}
	fi, err := m.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// A closure that only reads does not release.
func readOnly(path string) error {
	f, err := os.Open(path) // want `the file f from os.Open is not closed`
	if err != nil {
		return err
	}
	read := func() { _, _ = io.ReadAll(f) }
	read()
	return nil
}

// ---- near misses: each hand-off form ----

var global *os.File

func toGlobal(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	global = f
	return nil
}

func toMap(m map[string]*os.File, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	m[path] = f
	return nil
}

type registry struct {
	mu    sync.Mutex
	files []*os.File
}

func (r *registry) closeAll() {
	for _, f := range r.files {
		f.Close()
	}
}

// The field is released elsewhere in the package.
func (r *registry) add(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files = append(r.files, f)
	return nil
}

// Given to a function value: unknown code may close it.
func viaFunc(path string, use func(io.ReadCloser)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	use(f)
	return nil
}

type sink interface{ Take(io.Closer) }

// Given to an interface method whose parameter can close it.
func viaIface(path string, s sink) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	s.Take(f)
	return nil
}

// Given to a goroutine running a named function.
func viaGo(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	go copyAndClose(w, f)
	return nil
}

func copyAndClose(w io.Writer, f *os.File) {
	defer f.Close()
	_, _ = io.Copy(w, f)
}

// A cleanup closure registered for later.
func cleanup(path string, cleanups *[]func()) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	*cleanups = append(*cleanups, func() { f.Close() })
	return nil
}

// Its address escapes.
func addr(path string, out **os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	*out = f
	return nil
}

// The method value is registered.
func methodValue(ctx context.Context, path string, onDone func(func() error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	onDone(f.Close)
	return nil
}

// Shadowed error variable: the outer check is for this acquisition.
func twoFiles(a, b string) error {
	f, err := os.Open(a)
	if err != nil {
		return err
	}
	defer f.Close()
	g, err := os.Open(b)
	if err != nil {
		return err
	}
	return g.Close()
}

// Silenced with a reason.
func silenced(path string) error {
	//cancelcheck:ignore leaseleak the descriptor is reclaimed by the supervisor on exit
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	_, err = f.Stat()
	return err
}

// An exported field may be released by the package's importers.
type Job struct {
	Cancel context.CancelFunc
}

func StartJob(ctx context.Context) *Job {
	_, cancel := context.WithCancel(ctx)
	j := &Job{}
	j.Cancel = cancel
	return j
}

type job struct {
	cancel context.CancelFunc
	name   string
}

// An unexported field nothing releases does not own the cancel function.
func startJob(ctx context.Context) *job {
	_, cancel := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is stored in j.cancel, which nothing in this package calls \(job has no method that releases it\), so the child context and its resources live until the parent context ends`
	j := &job{name: "x"}
	j.cancel = cancel
	return j
}
