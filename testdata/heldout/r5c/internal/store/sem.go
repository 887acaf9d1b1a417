package store

import "context"

// Semaphore bounds concurrent work to a fixed number of slots.
type Semaphore struct {
	slots chan struct{}
}

// NewSemaphore returns a semaphore with n slots.
// ok: leaseleak
func NewSemaphore(n int) *Semaphore {
	return &Semaphore{slots: make(chan struct{}, n)}
}

// Acquire takes a slot, waiting until one is free or ctx is done.
// ok: leaseleak
func (s *Semaphore) Acquire(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release gives a slot back.
// ok: leaseleak
func (s *Semaphore) Release() {
	<-s.slots
}

// InUse reports how many slots are taken.
// ok: leaseleak
func (s *Semaphore) InUse() int {
	return len(s.slots)
}
