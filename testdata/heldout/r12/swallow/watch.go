package swallow

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// VolumeEvent is a change notification for one volume.
type VolumeEvent struct {
	Volume string
	Kind   string
}

// EventSource streams volume events until ctx is done.
type EventSource interface {
	Watch(ctx context.Context) (<-chan VolumeEvent, error)
}

// Applier reconciles one event.
type Applier interface {
	Apply(ctx context.Context, ev VolumeEvent) error
}

// VolumeWatcher keeps node state in sync with volume events.
type VolumeWatcher struct {
	src     EventSource
	applier Applier
}

var errWatchClosed = errors.New("volume watch channel closed")

// Sync applies events until the watch ends.
// From: minio/directpv#73
// bug: swallowcancel
func (w *VolumeWatcher) Sync(ctx context.Context) error {
	events, err := w.src.Watch(ctx)
	if err != nil {
		return fmt.Errorf("start watch: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return errWatchClosed
			}
			if err := w.applier.Apply(ctx, ev); err != nil {
				return fmt.Errorf("apply %s on %s: %w", ev.Kind, ev.Volume, err)
			}
		}
	}
}

// SyncNearMiss reports why the watch stopped.
// ok: swallowcancel
func (w *VolumeWatcher) SyncNearMiss(ctx context.Context) error {
	events, err := w.src.Watch(ctx)
	if err != nil {
		return fmt.Errorf("start watch: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return errWatchClosed
			}
			if err := w.applier.Apply(ctx, ev); err != nil {
				return fmt.Errorf("apply %s on %s: %w", ev.Kind, ev.Volume, err)
			}
		}
	}
}

// Value is a script value.
type Value interface{}

// Nil is the script nil value.
var Nil Value = nil

// Scope is the execution scope of a script; it is torn down by canceling ctx.
type Scope struct {
	ctx  context.Context
	name string
}

// Sleep pauses the script for d unless the scope is torn down first.
// From: nooga/let-go#924
// bug: swallowcancel
func (s *Scope) Sleep(d time.Duration) (Value, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
	}
	return Nil, nil
}

// SleepNearMiss surfaces the teardown through the error result.
// ok: swallowcancel
func (s *Scope) SleepNearMiss(d time.Duration) (Value, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
		return Nil, s.ctx.Err()
	}
	return Nil, nil
}

// Message is a chat notification.
type Message struct {
	ID   string
	Text string
}

// Webhook posts one message.
type Webhook interface {
	Post(ctx context.Context, m Message) error
}

// Sender delivers queued notifications with retries.
type Sender struct {
	hook    Webhook
	retries int
	base    time.Duration
	sent    int
}

// sleepCtx waits for d or until ctx is done.
// ok: swallowcancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush delivers every queued message, retrying each with backoff.
// From: atc0005/send2teams#89
// bug: swallowcancel
func (s *Sender) Flush(ctx context.Context, queue []Message) error {
outer:
	for _, msg := range queue {
		for attempt := 0; ; attempt++ {
			err := s.hook.Post(ctx, msg)
			if err == nil {
				s.sent++
				continue outer
			}
			if attempt == s.retries {
				return fmt.Errorf("post %s: %w", msg.ID, err)
			}
			if err := sleepCtx(ctx, s.base<<attempt); err != nil {
				break outer
			}
		}
	}
	return nil
}

// FlushNearMiss returns the cancellation that interrupted the backoff.
// ok: swallowcancel
func (s *Sender) FlushNearMiss(ctx context.Context, queue []Message) error {
outer:
	for _, msg := range queue {
		for attempt := 0; ; attempt++ {
			err := s.hook.Post(ctx, msg)
			if err == nil {
				s.sent++
				continue outer
			}
			if attempt == s.retries {
				return fmt.Errorf("post %s: %w", msg.ID, err)
			}
			if err := sleepCtx(ctx, s.base<<attempt); err != nil {
				return fmt.Errorf("backoff before retrying %s: %w", msg.ID, err)
			}
		}
	}
	return nil
}
