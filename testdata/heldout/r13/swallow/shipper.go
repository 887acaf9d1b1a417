package swallow

import (
	"context"
	"errors"
	"sync"
)

// Record is one log line to ship.
type Record struct {
	Stream string
	Line   []byte
}

// LogSink accepts shipped records.
type LogSink interface {
	Put(ctx context.Context, r Record) error
}

// Shipper ships records with a fixed pool of workers. Each worker reports
// the errors it saw on errs when it exits.
type Shipper struct {
	sink LogSink
	in   chan Record
	errs chan error
	wg   sync.WaitGroup
}

// NewShipper starts n workers bound to ctx.
// ok: swallowcancel
func NewShipper(ctx context.Context, sink LogSink, n int) *Shipper {
	s := &Shipper{sink: sink, in: make(chan Record), errs: make(chan error, n)}
	for i := 0; i < n; i++ {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			var seen []error
			for r := range s.in {
				if err := s.sink.Put(ctx, r); err != nil {
					seen = append(seen, err)
				}
			}
			if len(seen) > 0 {
				s.errs <- errors.Join(seen...)
			}
		}()
	}
	return s
}

// Ship queues one record, giving up when ctx ends.
// ok: swallowcancel
func (s *Shipper) Ship(ctx context.Context, r Record) error {
	select {
	case s.in <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the workers and waits for them, but never reads the errors
// they reported, so cancelled or timed-out puts look like a clean flush.
// From: ibm-messaging/mq-container#317
// bug: swallowcancel
func (s *Shipper) Close() error {
	close(s.in)
	s.wg.Wait()
	close(s.errs)
	return nil
}

// CloseNearMiss drains the workers' error channel.
// ok: swallowcancel
func (s *Shipper) CloseNearMiss() error {
	close(s.in)
	s.wg.Wait()
	close(s.errs)
	var all []error
	for err := range s.errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}
