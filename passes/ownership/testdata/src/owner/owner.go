// Package owner declares helpers whose ownership facts package user reads.
package owner

import (
	"context"
	"io"
	"net/http"
	"os"
	"time"
)

// Close releases its parameter.
func Close(c io.Closer) error { return c.Close() } // want Close:"releases its parameter 0"

// Keep stores its parameter in an owner that releases it.
type Keeper struct{ files []*os.File }

func (k *Keeper) Keep(f *os.File) { k.files = append(k.files, f) } // want Keep:"releases its parameter 0"

func (k *Keeper) Close() {
	for _, f := range k.files {
		f.Close()
	}
}

// Later hands its parameter to a goroutine.
func Later(cancel context.CancelFunc, d time.Duration) { // want Later:"releases its parameter 0"
	go func() {
		time.Sleep(d)
		cancel()
	}()
}

// Size only reads: no fact.
func Size(r io.Reader) int {
	b, _ := io.ReadAll(r)
	return len(b)
}

// Wrap keeps its parameter in a struct with no release method: no fact.
type wrapped struct{ r io.Reader }

func Wrap(r io.Reader) io.Reader { return wrapped{r: r} }

func (w wrapped) Read(p []byte) (int, error) { return w.r.Read(p) }

// Open returns an owned file.
func Open(name string) (*os.File, error) { // want Open:"returns an owned file in result 0"
	return os.Open(name)
}

// Get returns an owned response.
func Get(url string) (*http.Response, error) { // want Get:"returns an owned body in result 0"
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Shared returns a file it also keeps: not owned by the caller.
func (k *Keeper) Shared(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	k.files = append(k.files, f)
	return f, nil
}
