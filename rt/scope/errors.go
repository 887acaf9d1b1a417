package scope

import (
	"errors"
	"fmt"
)

// ErrGoexit is the error recorded for a goroutine that called
// [runtime.Goexit], for example through [testing.T.FailNow], instead of
// returning.
var ErrGoexit = errors.New("called runtime.Goexit")

// An Error is a goroutine's failure as reported by [Scope.Wait]: the
// goroutine's name and the error it returned.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns the goroutine's error.
func (e *Error) Unwrap() error { return e.Err }

// A PanicError is the value [Scope.Wait] panics with when a goroutine of
// the scope panicked. It is also the cause of the scope's context.
type PanicError struct {
	// Name is the name the goroutine was started with.
	Name string
	// Value is what the goroutine panicked with.
	Value any
	// Stack is the goroutine's stack when the panic was recovered,
	// as printed by [runtime/debug.Stack].
	Stack []byte
}

// Error describes the panic and includes the stack where it happened.
func (p *PanicError) Error() string {
	return fmt.Sprintf("scope: goroutine %q panicked: %v\n\n%s", p.Name, p.Value, p.Stack)
}

// Unwrap returns Value if it is an error, and nil otherwise.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
