// Package errs declares error types for the two-package fact test.
package errs

import "fmt"

// OpError stores the error but cannot unwrap it.
type OpError struct {
	Op  string
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

// Wrapped unwraps: no fact.
type Wrapped struct {
	Err error
}

func (e Wrapped) Error() string { return fmt.Sprint(e.Err) }
func (e Wrapped) Unwrap() error { return e.Err }

// Code holds no error: no fact.
type Code struct{ N int }

func (c Code) Error() string { return fmt.Sprint(c.N) }
