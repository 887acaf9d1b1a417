// Package retry holds retry, poll, reconnect and wait loops, some of which go
// on after their context is done.
package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"
)

// ---------------------------------------------------------------------------
// Task polling (meilisearch/meilisearch-go#495)

// TaskStatus is the state of an indexing task.
type TaskStatus string

// Task statuses.
const (
	TaskEnqueued   TaskStatus = "enqueued"
	TaskProcessing TaskStatus = "processing"
	TaskSucceeded  TaskStatus = "succeeded"
	TaskFailed     TaskStatus = "failed"
)

// TaskInfo is what the server reports about a task.
type TaskInfo struct {
	UID    int64
	Status TaskStatus
	Error  string
}

// TaskAPI fetches task state.
type TaskAPI interface {
	GetTask(ctx context.Context, uid int64) (*TaskInfo, error)
}

// SearchClient talks to the search server.
type SearchClient struct {
	api TaskAPI
}

// NewSearchClient builds a client.
//
// ok: retrycancel
func NewSearchClient(api TaskAPI) *SearchClient {
	return &SearchClient{api: api}
}

// finished reports whether the task reached a terminal state.
//
// ok: retrycancel
func finished(t *TaskInfo) bool {
	return t.Status == TaskSucceeded || t.Status == TaskFailed
}

// WaitForTask polls until the task finishes.
// From: meilisearch/meilisearch-go#495
// the wait between polls is time.Sleep, so after ctx is cancelled the loop
// keeps sleeping for the rest of the interval before it notices
//
// bug: retrycancel
func (c *SearchClient) WaitForTask(ctx context.Context, uid int64, interval time.Duration) (*TaskInfo, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		task, err := c.api.GetTask(ctx, uid)
		if err != nil {
			return nil, err
		}
		if finished(task) {
			return task, nil
		}
		time.Sleep(interval)
	}
}

// WaitForTaskNearMiss waits on a ticker or ctx.Done.
// From: meilisearch/meilisearch-go#495
//
// ok: retrycancel
func (c *SearchClient) WaitForTaskNearMiss(ctx context.Context, uid int64, interval time.Duration) (*TaskInfo, error) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		task, err := c.api.GetTask(ctx, uid)
		if err != nil {
			return nil, err
		}
		if finished(task) {
			return task, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ticker.C:
		}
	}
}

// ---------------------------------------------------------------------------
// Static host user events (gravitational/teleport#62735)

// HostUser is a login to provision on a node.
type HostUser struct {
	Login  string
	Groups []string
}

// HostUserEvent announces a host user to the provisioner.
type HostUserEvent struct {
	User HostUser
	Seq  int
}

// HostUserWatcher forwards host users to its consumer.
type HostUserWatcher struct {
	events chan HostUserEvent
}

// NewHostUserWatcher builds a watcher with an event buffer.
//
// ok: retrycancel
func NewHostUserWatcher(buffer int) *HostUserWatcher {
	return &HostUserWatcher{events: make(chan HostUserEvent, buffer)}
}

// Events exposes the event stream.
//
// ok: retrycancel
func (w *HostUserWatcher) Events() <-chan HostUserEvent {
	return w.events
}

// Publish sends one event per user.
// From: gravitational/teleport#62735
// the break in the ctx.Done arm leaves only the select, so after cancellation
// the loop moves on and keeps sending events whenever the buffer has room
//
// bug: retrycancel
func (w *HostUserWatcher) Publish(ctx context.Context, users []HostUser) int {
	sent := 0
	for i, u := range users {
		select {
		case <-ctx.Done():
			break
		case w.events <- HostUserEvent{User: u, Seq: i}:
			sent++
		}
	}
	return sent
}

// PublishNearMiss breaks out of the labelled loop.
// From: gravitational/teleport#62735
//
// ok: retrycancel
func (w *HostUserWatcher) PublishNearMiss(ctx context.Context, users []HostUser) int {
	sent := 0
send:
	for i, u := range users {
		select {
		case <-ctx.Done():
			break send
		case w.events <- HostUserEvent{User: u, Seq: i}:
			sent++
		}
	}
	return sent
}

// ---------------------------------------------------------------------------
// Websocket client writer (go-admin-team/go-admin-core#128)

// MessageWriter is the write half of a websocket connection.
type MessageWriter interface {
	WriteMessage(kind int, data []byte) error
	Close() error
}

// WSClient is one connected websocket client.
type WSClient struct {
	ID      string
	Context context.Context
	Send    chan []byte
	conn    MessageWriter
}

// NewWSClient builds a client bound to its own lifetime context.
//
// ok: retrycancel
func NewWSClient(ctx context.Context, id string, conn MessageWriter) *WSClient {
	return &WSClient{ID: id, Context: ctx, Send: make(chan []byte, 64), conn: conn}
}

// Write pumps queued messages to the connection.
// From: go-admin-team/go-admin-core#128
// the break in the client-context arm leaves only the select; when the
// client context ends but ctx does not, the loop spins on the closed Done channel
//
// bug: retrycancel
func (c *WSClient) Write(ctx context.Context) {
	defer c.conn.Close()
	for {
		if ctx.Err() != nil {
			return
		}
		select {
		case msg, ok := <-c.Send:
			if !ok {
				return
			}
			if err := c.conn.WriteMessage(1, msg); err != nil {
				return
			}
		case <-c.Context.Done():
			break
		}
	}
}

// WriteNearMiss returns when the client context ends.
// From: go-admin-team/go-admin-core#128
//
// ok: retrycancel
func (c *WSClient) WriteNearMiss(ctx context.Context) {
	defer c.conn.Close()
	for {
		if ctx.Err() != nil {
			return
		}
		select {
		case msg, ok := <-c.Send:
			if !ok {
				return
			}
			if err := c.conn.WriteMessage(1, msg); err != nil {
				return
			}
		case <-c.Context.Done():
			return
		}
	}
}

// ---------------------------------------------------------------------------
// Endpoint watcher reconnect (improbable-eng/kedge#113)

// Streamer receives endpoint change events.
type Streamer interface {
	Next() (string, error)
	Close() error
}

// StreamDialer opens a change stream for a target.
type StreamDialer func(ctx context.Context, target string) (Streamer, error)

// EndpointWatcher keeps a change stream open for one target.
type EndpointWatcher struct {
	target  string
	dial    StreamDialer
	backoff time.Duration
	log     *log.Logger
}

// NewEndpointWatcher builds a watcher.
//
// ok: retrycancel
func NewEndpointWatcher(target string, dial StreamDialer, backoff time.Duration, logger *log.Logger) *EndpointWatcher {
	return &EndpointWatcher{target: target, dial: dial, backoff: backoff, log: logger}
}

// startStreamerWithRetry dials until a stream opens.
// From: improbable-eng/kedge#113
// the ctx.Done arm falls through to the next iteration; once ctx is cancelled
// every dial fails at once and the select is always ready, so the loop spins
//
// bug: retrycancel
func (w *EndpointWatcher) startStreamerWithRetry(ctx context.Context) (Streamer, error) {
	for {
		s, err := w.dial(ctx, w.target)
		if err == nil {
			return s, nil
		}
		w.log.Printf("starting stream for %s: %v", w.target, err)
		t := time.NewTimer(w.backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// startStreamerWithRetryNearMiss returns when ctx is done.
// From: improbable-eng/kedge#113
//
// ok: retrycancel
func (w *EndpointWatcher) startStreamerWithRetryNearMiss(ctx context.Context) (Streamer, error) {
	for {
		s, err := w.dial(ctx, w.target)
		if err == nil {
			return s, nil
		}
		w.log.Printf("starting stream for %s: %v", w.target, err)
		t := time.NewTimer(w.backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

// Watch opens a stream and returns its first event.
//
// ok: retrycancel
func (w *EndpointWatcher) Watch(ctx context.Context) (string, error) {
	s, err := w.startStreamerWithRetryNearMiss(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Next()
}

// ---------------------------------------------------------------------------
// Resync worker (bluesky-social/indigo#1289)

// ResyncJob is one repository to resync.
type ResyncJob struct {
	DID string
}

// ResyncQueue hands out resync jobs.
type ResyncQueue interface {
	WaitForReady(ctx context.Context) error
	Claim(ctx context.Context) (*ResyncJob, error)
	Complete(ctx context.Context, job *ResyncJob, err error) error
}

// Resyncer processes resync jobs.
type Resyncer struct {
	queue  ResyncQueue
	resync func(ctx context.Context, did string) error
	log    *log.Logger
}

// NewResyncer builds a resyncer.
//
// ok: retrycancel
func NewResyncer(q ResyncQueue, resync func(context.Context, string) error, logger *log.Logger) *Resyncer {
	return &Resyncer{queue: q, resync: resync, log: logger}
}

// pause waits for d or until ctx is done.
//
// ok: retrycancel
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// RunWorker processes jobs until ctx is done.
// From: bluesky-social/indigo#1289
// after ctx is cancelled WaitForReady and Claim fail immediately and pause
// returns at once, so every error path continues and the worker loops forever
//
// bug: retrycancel
func (r *Resyncer) RunWorker(ctx context.Context) {
	for {
		if err := r.queue.WaitForReady(ctx); err != nil {
			r.log.Printf("resync: waiting for ready: %v", err)
			pause(ctx, time.Second)
			continue
		}
		job, err := r.queue.Claim(ctx)
		if err != nil {
			r.log.Printf("resync: claiming job: %v", err)
			pause(ctx, time.Second)
			continue
		}
		if job == nil {
			pause(ctx, time.Second)
			continue
		}
		rerr := r.resync(ctx, job.DID)
		if err := r.queue.Complete(ctx, job, rerr); err != nil {
			r.log.Printf("resync: completing %s: %v", job.DID, err)
		}
	}
}

// RunWorkerNearMiss exits once ctx is done.
// From: bluesky-social/indigo#1289
//
// ok: retrycancel
func (r *Resyncer) RunWorkerNearMiss(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		if err := r.queue.WaitForReady(ctx); err != nil {
			r.log.Printf("resync: waiting for ready: %v", err)
			pause(ctx, time.Second)
			continue
		}
		job, err := r.queue.Claim(ctx)
		if err != nil {
			r.log.Printf("resync: claiming job: %v", err)
			pause(ctx, time.Second)
			continue
		}
		if job == nil {
			pause(ctx, time.Second)
			continue
		}
		rerr := r.resync(ctx, job.DID)
		if err := r.queue.Complete(ctx, job, rerr); err != nil {
			r.log.Printf("resync: completing %s: %v", job.DID, err)
		}
	}
}

// ---------------------------------------------------------------------------
// Generic retry helper (sethvargo/go-retry#10)

// Backoff yields successive waits; stop reports that no attempts remain.
type Backoff interface {
	Next() (wait time.Duration, stop bool)
}

// retryableError marks an error as worth retrying.
type retryableError struct{ err error }

// Error implements error.
//
// ok: retrycancel
func (e *retryableError) Error() string { return "retryable: " + e.err.Error() }

// Unwrap returns the wrapped error.
//
// ok: retrycancel
func (e *retryableError) Unwrap() error { return e.err }

// RetryableError marks err as retryable.
//
// ok: retrycancel
func RetryableError(err error) error {
	if err == nil {
		return nil
	}
	return &retryableError{err: err}
}

// Do calls f until it succeeds, returns a non-retryable error, or the backoff
// stops.
// From: sethvargo/go-retry#10
// the context is only checked in the wait select; when the timer and ctx.Done
// are ready together the timer can win and f runs again after cancellation
//
// bug: retrycancel
func Do[T any](ctx context.Context, b Backoff, f func(context.Context) (T, error)) (T, error) {
	var zero T
	for {
		v, err := f(ctx)
		if err == nil {
			return v, nil
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return zero, err
		}
		next, stop := b.Next()
		if stop {
			return zero, re.err
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, ctx.Err()
		case <-t.C:
		}
	}
}

// DoNearMiss checks ctx before every attempt.
// From: sethvargo/go-retry#10
//
// ok: retrycancel
func DoNearMiss[T any](ctx context.Context, b Backoff, f func(context.Context) (T, error)) (T, error) {
	var zero T
	for {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		v, err := f(ctx)
		if err == nil {
			return v, nil
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return zero, err
		}
		next, stop := b.Next()
		if stop {
			return zero, re.err
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, ctx.Err()
		case <-t.C:
		}
	}
}

// constantBackoff waits the same duration a fixed number of times.
type constantBackoff struct {
	wait time.Duration
	left int
}

// Next implements Backoff.
//
// ok: retrycancel
func (b *constantBackoff) Next() (time.Duration, bool) {
	if b.left <= 0 {
		return 0, true
	}
	b.left--
	return b.wait, false
}

// FetchWithRetry fetches a document, retrying transient failures.
//
// ok: retrycancel
func FetchWithRetry(ctx context.Context, fetch func(context.Context, string) ([]byte, error), id string) ([]byte, error) {
	b := &constantBackoff{wait: 200 * time.Millisecond, left: 5}
	body, err := DoNearMiss(ctx, b, func(ctx context.Context) ([]byte, error) {
		body, err := fetch(ctx, id)
		if err != nil {
			return nil, RetryableError(err)
		}
		return body, nil
	})
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", id, err)
	}
	return body, nil
}
