package fence

// A Value holds the latest result published by a current generation of
// work. The zero Value is ready to use and holds the zero T. A Value must
// not be copied after first use.
type Value[T any] struct {
	// Fence orders the generations that write the value.
	Fence Fence
	v     T
	tok   Token
}

// Store sets the value to v if tok is current, or returns a [*StaleError]
// and leaves the value as it was.
func (x *Value[T]) Store(tok Token, v T) error {
	return x.Fence.Commit(tok, func() { x.v, x.tok = v, tok })
}

// Load returns the value and the token of the generation that stored it;
// the token is the zero Token if nothing was stored.
func (x *Value[T]) Load() (T, Token) {
	x.Fence.mu.Lock()
	defer x.Fence.mu.Unlock()
	return x.v, x.tok
}

// CommitValue stores v in *dst if tok is current, as [Fence.Commit] does
// for a function, and returns a [*StaleError] otherwise.
func CommitValue[T any](f *Fence, tok Token, dst *T, v T) error {
	return f.Commit(tok, func() { *dst = v })
}
