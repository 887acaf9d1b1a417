package user

import (
	"io"

	"owner"
)

// CloseVia releases its parameter through owner.Close (a fact from another
// package).
func CloseVia(c io.Closer) { // want CloseVia:"releases its parameter 0"
	_ = owner.Close(c)
}

// Measure only reads through owner.Size.
func Measure(r io.Reader) int { return owner.Size(owner.Wrap(r)) }

// OpenTwice wraps a wrapper: still owned by its caller.
func OpenTwice(name string) (io.ReadCloser, error) { // want OpenTwice:"returns an owned file in result 0"
	f, err := owner.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}
