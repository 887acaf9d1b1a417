package fence

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
)

// ErrStale is matched by every [*StaleError].
var ErrStale = errors.New("fence: stale token")

// A Token names the generation a piece of work started in. The zero Token
// belongs to no generation and is always stale.
type Token struct {
	gen uint64
}

// Generation returns the token's generation number, counting from 1; the
// zero Token's is 0.
func (t Token) Generation() uint64 { return t.gen }

// A Fence orders generations of work. A zero Fence is ready to use, in
// generation 1. A Fence must not be copied after first use. It is safe for
// concurrent use.
type Fence struct {
	mu  sync.Mutex    // held by Commit, Begin and Advance
	gen atomic.Uint64 // current generation minus one
}

// Begin starts a new generation and returns its token, superseding every
// earlier token. If a Commit is running, Begin waits for it.
func (f *Fence) Begin() Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Token{f.gen.Add(1) + 1}
}

// Current returns the token of the current generation without starting a
// new one, for work that joins the generation in progress.
func (f *Fence) Current() Token {
	return Token{f.gen.Load() + 1}
}

// Advance starts a new generation without handing out its token, so
// every outstanding token becomes stale. When Advance returns, no Commit
// with an earlier token is running or will run.
func (f *Fence) Advance() {
	f.mu.Lock()
	f.gen.Add(1)
	f.mu.Unlock()
}

// Valid reports whether tok is still current. The answer may be out of
// date by the time the caller acts on it; use Commit to act on it.
func (f *Fence) Valid(tok Token) bool {
	return tok.gen != 0 && tok.gen == f.gen.Load()+1
}

// Commit calls publish if tok is current and returns nil, or returns a
// [*StaleError] without calling it. No Begin or Advance happens while
// publish runs, so it must be short, and it must not call methods of f.
// A token may commit any number of times while it is current.
func (f *Fence) Commit(tok Token, publish func()) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cur := f.gen.Load() + 1; tok.gen == 0 || tok.gen != cur {
		return &StaleError{Token: tok, Current: Token{cur}}
	}
	publish()
	return nil
}

// A StaleError reports a commit whose token was superseded.
type StaleError struct {
	Token   Token // the token of the rejected commit
	Current Token // the generation that was current at the time
}

func (e *StaleError) Error() string {
	return "fence: stale token (generation " + strconv.FormatUint(e.Token.gen, 10) +
		", current " + strconv.FormatUint(e.Current.gen, 10) + ")"
}

// Is reports whether target is [ErrStale].
func (e *StaleError) Is(target error) bool { return target == ErrStale }
