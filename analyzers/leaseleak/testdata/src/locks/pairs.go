package locks

import (
	"context"
	"errors"
)

// permits is a counting semaphore of the package's own.
type permits struct{ slots chan struct{} }

func (p *permits) TryAcquire() bool {
	select {
	case p.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (p *permits) Acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *permits) Release() { <-p.slots }

type lookups struct {
	permits   *permits
	authorize func(ctx context.Context, who string) error
	lookup    func(ctx context.Context, topic string) (string, error)
}

var errBusy = errors.New("busy")

// handle returns before the deferred Release is registered when the
// authorization fails: each rejected lookup keeps its permit.
func (s *lookups) handle(ctx context.Context, who, topic string) (string, error) {
	if !s.permits.TryAcquire() { // want `s.permits.TryAcquire takes from the permits here, and the function gives it back with s.permits.Release elsewhere, but not on the path through the return when err != nil: what it took is never given back on that path`
		return "", errBusy
	}
	if err := s.authorize(ctx, who); err != nil {
		return "", err
	}
	defer s.permits.Release()
	return s.lookup(ctx, topic)
}

// handleDeferred gives the permit back on every path.
func (s *lookups) handleDeferred(ctx context.Context, who, topic string) (string, error) {
	if !s.permits.TryAcquire() {
		return "", errBusy
	}
	defer s.permits.Release()
	if err := s.authorize(ctx, who); err != nil {
		return "", err
	}
	return s.lookup(ctx, topic)
}

// wait keeps the permit when the lookup fails; a failed Acquire holds
// nothing.
func (s *lookups) wait(ctx context.Context, topic string) (string, error) {
	if err := s.permits.Acquire(ctx); err != nil { // want `s.permits.Acquire takes from the permits here, and the function gives it back with s.permits.Release elsewhere, but not on the path through the return when err != nil`
		return "", err
	}
	v, err := s.lookup(ctx, topic)
	if err != nil {
		return "", err
	}
	s.permits.Release()
	return v, nil
}

// waitReleased gives the permit back before either return.
func (s *lookups) waitReleased(ctx context.Context, topic string) (string, error) {
	if err := s.permits.Acquire(ctx); err != nil {
		return "", err
	}
	v, err := s.lookup(ctx, topic)
	s.permits.Release()
	if err != nil {
		return "", err
	}
	return v, nil
}

// take hands the permit to its caller: it never gives one back itself.
func (s *lookups) take(ctx context.Context) error {
	if err := s.permits.Acquire(ctx); err != nil {
		return err
	}
	if s.lookup == nil {
		return errBusy
	}
	return nil
}

type sequence struct{ release func() }

// open gives the permit back on its failures and hands it, as the release
// method value, to the sequence it returns.
func (s *lookups) open(ctx context.Context, topic string) (*sequence, error) {
	if err := s.permits.Acquire(ctx); err != nil {
		return nil, err
	}
	if _, err := s.lookup(ctx, topic); err != nil {
		s.permits.Release()
		return nil, err
	}
	return &sequence{release: s.permits.Release}, nil
}

// openLeaky forgets the permit when the lookup fails; since it never gives
// a permit back itself, only through the value it returns, it is taken to
// hand every permit to its caller, and is not held to every path (a known
// limit: the pair is inferred from the function's own releases).
func (s *lookups) openLeaky(ctx context.Context, topic string) (*sequence, error) {
	if err := s.permits.Acquire(ctx); err != nil {
		return nil, err
	}
	if _, err := s.lookup(ctx, topic); err != nil {
		return nil, err
	}
	return &sequence{release: s.permits.Release}, nil
}

type pinner struct{ pinned []any }

func (p *pinner) Pin(x any) { p.pinned = append(p.pinned, x) }
func (p *pinner) Unpin()    { p.pinned = nil }

var keepUnpin bool

// newSelfPinned returns the pinner it pinned: the caller unpins.
func newSelfPinned() *pinner {
	p := new(pinner)
	p.Pin(p)
	if keepUnpin {
		p.Unpin()
	}
	return p
}
