package files

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
)

// The file leaks when the header check fails.
func header(path string) ([]byte, error) {
	f, err := os.Open(path) // want `the file f from os.Open is not closed on the path through the return when n < 4, so the file descriptor stays open until a finalizer runs`
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 4)
	n, _ := f.Read(buf)
	if n < 4 {
		return nil, errors.New("short")
	}
	f.Close()
	return buf, nil
}

// Wrapping the file in a bufio.Reader does not hand it off.
func lines(path string) (int, error) {
	f, err := os.Open(path) // want `the file f from os.Open is not closed on the path through the return`
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}

// A connection dialed for a probe and left open on cancellation.
func probe(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr) // want `the connection conn from \(\*net.Dialer\).DialContext is not closed on the path through the return in case <-ctx.Done\(\)`
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	return conn.Close()
}

// Opened in a loop, closed only at the end of the function.
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

// ---- near misses ----

func good(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Returned through a wrapper type that closes it.
type lineReader struct {
	*bufio.Reader
	f *os.File
}

func (l *lineReader) Close() error { return l.f.Close() }

func openLines(path string) (*lineReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &lineReader{Reader: bufio.NewReader(f), f: f}, nil
}

// Listener served by a goroutine.
func serve(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return nil
}

// Closed in every iteration.
func each(paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Appended to a list of files closed later.
func openAll(paths []string) ([]*os.File, error) {
	var out []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			for _, g := range out {
				g.Close()
			}
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Named result returned by a bare return.
func create(path string) (f *os.File, err error) {
	f, err = os.Create(path)
	if err != nil {
		return
	}
	if _, err = f.WriteString("x"); err != nil {
		f.Close()
		return nil, err
	}
	return
}

var shared *os.File

// Assigned to a package variable: handed off.
func initShared() error {
	var err error
	shared, err = os.Open("/dev/urandom")
	return err
}

// os.IsExist(err) true means the open failed.
func tryCreate(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL, 0o600)
	if os.IsExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// Closed under the same condition it was opened under.
func maybeLog(path string, verbose bool) error {
	var f *os.File
	if verbose {
		var err error
		f, err = os.Create(path)
		if err != nil {
			return err
		}
	}
	if verbose {
		defer f.Close()
	}
	return nil
}

// A deferred closure registered before the acquisition closes the file.
func spill(parts [][]byte, dir string) error {
	var file *os.File
	defer func() {
		if file != nil {
			file.Close()
		}
	}()
	for _, p := range parts {
		if file == nil {
			var err error
			file, err = os.CreateTemp(dir, "spill-")
			if err != nil {
				return err
			}
		}
		if _, err := file.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// An accepted connection leaks when the handshake check fails.
func acceptOne(ln net.Listener, ok func(net.Addr) bool) error {
	c, err := ln.Accept() // want `the connection c from \(net.Listener\).Accept is not closed on the path through the return when !ok\(c.RemoteAddr\(\)\)`
	if err != nil {
		return err
	}
	if !ok(c.RemoteAddr()) {
		return errors.New("rejected")
	}
	go serveConn(c)
	return nil
}

func serveConn(c net.Conn) { defer c.Close() }

type block struct{ cached *os.File }

// Near-miss: a local flag set once the open succeeded says whether this
// function owns the file; the cached one is not its to close.
func (b *block) sync(name string) error {
	fd, didOpen := b.cached, false
	if fd == nil {
		var err error
		fd, err = os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		didOpen = true
	}
	if err := fd.Sync(); err != nil {
		if didOpen {
			_ = fd.Close()
		}
		return err
	}
	if didOpen {
		return fd.Close()
	}
	return nil
}
