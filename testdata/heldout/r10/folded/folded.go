// Package folded holds service code that reports failures upward, where a
// caller may need to tell a deadline from a cancellation.
package folded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"time"
)

// ---------------------------------------------------------------------------
// Bot API client.

// APIError is returned when a bot API call fails. Err, when set, is the
// transport failure behind it.
type APIError struct {
	Method  string
	Code    int
	Message string
	Err     error
}

// ok: foldedtimeout
func (e *APIError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Method, e.Err)
	}
	return fmt.Sprintf("%s: %d %s", e.Method, e.Code, e.Message)
}

// ok: foldedtimeout
func (e *APIError) Unwrap() error { return e.Err }

// apiEnvelope is the bot API's response wrapper.
type apiEnvelope struct {
	OK          bool            `json:"ok"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Result      json.RawMessage `json:"result"`
}

// BotClient calls the bot API.
type BotClient struct {
	hc  *http.Client
	url string
}

// rawRequest posts params to method and decodes the result into dest.
// From: keybase/client#15599
// bug: foldedtimeout
func (b *BotClient) rawRequest(ctx context.Context, method string, params, dest any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("marshal %s params: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build %s request: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.hc.Do(req)
	if err != nil {
		return &APIError{Method: method, Message: "do request: " + err.Error()}
	}
	defer resp.Body.Close()
	var env apiEnvelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("decode %s response: %w", method, err)
	}
	if !env.OK {
		return &APIError{Method: method, Code: env.ErrorCode, Message: env.Description}
	}
	return json.Unmarshal(env.Result, dest)
}

// rawRequestNearMiss posts params to method and decodes the result into dest.
// ok: foldedtimeout
func (b *BotClient) rawRequestNearMiss(ctx context.Context, method string, params, dest any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("marshal %s params: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build %s request: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.hc.Do(req)
	if err != nil {
		return &APIError{Method: method, Message: "do request", Err: err}
	}
	defer resp.Body.Close()
	var env apiEnvelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("decode %s response: %w", method, err)
	}
	if !env.OK {
		return &APIError{Method: method, Code: env.ErrorCode, Message: env.Description}
	}
	return json.Unmarshal(env.Result, dest)
}

// ---------------------------------------------------------------------------
// Resource waiting.

// StateAPI reads the provisioning state of a cloud resource.
type StateAPI interface {
	State(ctx context.Context, kind, id string) (string, error)
}

// ResourceWaiter waits for resources to settle.
type ResourceWaiter struct {
	api      StateAPI
	interval time.Duration
}

// WaitForState polls the resource until it reaches want, enters the error state, or ctx ends.
// From: Arubacloud/terraform-provider-arubacloud#173
// bug: foldedtimeout
func (w *ResourceWaiter) WaitForState(ctx context.Context, kind, id, want string) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for attempt := 1; ; attempt++ {
		state, err := w.api.State(ctx, kind, id)
		if err != nil {
			return fmt.Errorf("read state of %s %s: %w", kind, id, err)
		}
		switch state {
		case want:
			return nil
		case "error":
			return fmt.Errorf("%s %s entered the error state", kind, id)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s %s to become %s after %d attempts: %v", kind, id, want, attempt, ctx.Err())
		case <-t.C:
		}
	}
}

// WaitForStateNearMiss polls the resource until it reaches want, enters the error state, or ctx ends.
// ok: foldedtimeout
func (w *ResourceWaiter) WaitForStateNearMiss(ctx context.Context, kind, id, want string) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for attempt := 1; ; attempt++ {
		state, err := w.api.State(ctx, kind, id)
		if err != nil {
			return fmt.Errorf("read state of %s %s: %w", kind, id, err)
		}
		switch state {
		case want:
			return nil
		case "error":
			return fmt.Errorf("%s %s entered the error state", kind, id)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s %s to become %s after %d attempts: %w", kind, id, want, attempt, ctx.Err())
		case <-t.C:
		}
	}
}

// ---------------------------------------------------------------------------
// Model watching.

// ModelChange is one change to a model.
type ModelChange struct {
	ModelUUID string
	Revision  int64
}

// ErrWatchTimeout is returned when no change arrived in time.
var ErrWatchTimeout = errors.New("timed out waiting for model change")

// ErrWatcherStopped is returned once the watcher's feed has ended.
var ErrWatcherStopped = errors.New("watcher stopped")

// ModelWatcher relays model changes.
type ModelWatcher struct {
	changes <-chan *ModelChange
	seen    map[string]int64
}

// NextChange waits for the next change to model uuid newer than the last one seen.
// From: canonical/jimm#235
// bug: foldedtimeout
func (w *ModelWatcher) NextChange(ctx context.Context, uuid string) (*ModelChange, error) {
	for {
		select {
		case ch, ok := <-w.changes:
			if !ok {
				return nil, ErrWatcherStopped
			}
			if ch.ModelUUID != uuid || ch.Revision <= w.seen[uuid] {
				continue
			}
			w.seen[uuid] = ch.Revision
			return ch, nil
		case <-ctx.Done():
			return nil, ErrWatchTimeout
		}
	}
}

// NextChangeNearMiss waits for the next change to model uuid newer than the last one seen.
// ok: foldedtimeout
func (w *ModelWatcher) NextChangeNearMiss(ctx context.Context, uuid string) (*ModelChange, error) {
	for {
		select {
		case ch, ok := <-w.changes:
			if !ok {
				return nil, ErrWatcherStopped
			}
			if ch.ModelUUID != uuid || ch.Revision <= w.seen[uuid] {
				continue
			}
			w.seen[uuid] = ch.Revision
			return ch, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for change of model %s: %w", uuid, ctx.Err())
		}
	}
}

// ---------------------------------------------------------------------------
// Call execution.

// CallMsg is a read-only contract call.
type CallMsg struct {
	To   string
	Data []byte
}

// VM executes calls; Aborted reports whether execution stopped because its context ended.
type VM interface {
	Execute(ctx context.Context, msg CallMsg) ([]byte, error)
	Aborted() bool
}

// CallBackend prepares VMs.
type CallBackend interface {
	NewVM(ctx context.Context, block uint64) (VM, error)
}

// CallAPI serves read-only calls.
type CallAPI struct {
	backend CallBackend
}

// Call executes msg against the state at block, bounded by timeout when it is positive.
// From: 0xsoniclabs/sonic#946
// bug: foldedtimeout
func (api *CallAPI) Call(ctx context.Context, msg CallMsg, block uint64, timeout time.Duration) ([]byte, error) {
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	vm, err := api.backend.NewVM(ctx, block)
	if err != nil {
		return nil, fmt.Errorf("prepare vm at block %d: %w", block, err)
	}
	out, execErr := vm.Execute(ctx, msg)
	if vm.Aborted() && ctx.Err() != nil {
		return nil, fmt.Errorf("execution aborted (timeout = %v): %w", timeout, context.DeadlineExceeded)
	}
	if execErr != nil {
		return nil, fmt.Errorf("execute call to %s: %w", msg.To, execErr)
	}
	return out, nil
}

// CallNearMiss executes msg against the state at block, bounded by timeout when it is positive.
// ok: foldedtimeout
func (api *CallAPI) CallNearMiss(ctx context.Context, msg CallMsg, block uint64, timeout time.Duration) ([]byte, error) {
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	vm, err := api.backend.NewVM(ctx, block)
	if err != nil {
		return nil, fmt.Errorf("prepare vm at block %d: %w", block, err)
	}
	out, execErr := vm.Execute(ctx, msg)
	if vm.Aborted() && ctx.Err() != nil {
		return nil, fmt.Errorf("execution aborted (timeout = %v): %w", timeout, ctx.Err())
	}
	if execErr != nil {
		return nil, fmt.Errorf("execute call to %s: %w", msg.To, execErr)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Task broker.

// TaskMessage is a queued task.
type TaskMessage struct {
	ID      string
	Queue   string
	Payload []byte
}

// KV is the subset of a key-value client the broker uses.
type KV interface {
	SAdd(ctx context.Context, key, member string) error
	Eval(ctx context.Context, script string, keys []string, args ...any) (int64, error)
}

// ErrTaskIDConflict is returned when a task with the same id is already queued.
var ErrTaskIDConflict = errors.New("task id conflicts with another task")

const enqueueScript = `if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("SET", KEYS[1], ARGV[1])
redis.call("LPUSH", KEYS[2], ARGV[2])
return 1`

// Broker stores tasks.
type Broker struct {
	kv KV
}

// Enqueue stores the task message and adds it to its queue's pending list.
// From: hibiken/asynq#1047
// bug: foldedtimeout
func (b *Broker) Enqueue(ctx context.Context, msg *TaskMessage) error {
	encoded, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", msg.ID, err)
	}
	if err := b.kv.SAdd(ctx, "queues", msg.Queue); err != nil {
		return fmt.Errorf("register queue %s: %w", msg.Queue, err)
	}
	keys := []string{"task:" + msg.Queue + ":" + msg.ID, "pending:" + msg.Queue}
	n, err := b.kv.Eval(ctx, enqueueScript, keys, encoded, msg.ID)
	if err != nil {
		return fmt.Errorf("redis eval error: %v", err)
	}
	if n == 0 {
		return ErrTaskIDConflict
	}
	return nil
}

// EnqueueNearMiss stores the task message and adds it to its queue's pending list.
// ok: foldedtimeout
func (b *Broker) EnqueueNearMiss(ctx context.Context, msg *TaskMessage) error {
	encoded, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", msg.ID, err)
	}
	if err := b.kv.SAdd(ctx, "queues", msg.Queue); err != nil {
		return fmt.Errorf("register queue %s: %w", msg.Queue, err)
	}
	keys := []string{"task:" + msg.Queue + ":" + msg.ID, "pending:" + msg.Queue}
	n, err := b.kv.Eval(ctx, enqueueScript, keys, encoded, msg.ID)
	if err != nil {
		return fmt.Errorf("redis eval error: %w", err)
	}
	if n == 0 {
		return ErrTaskIDConflict
	}
	return nil
}

// ---------------------------------------------------------------------------
// Event streams.

// StoredEvent is one event of a subject.
type StoredEvent struct {
	Subject string
	ID      string
	Data    json.RawMessage
}

// EventStream yields events until io.EOF.
type EventStream interface {
	Next(ctx context.Context) (StoredEvent, error)
	Close() error
}

// StreamAPI opens event streams.
type StreamAPI interface {
	Open(ctx context.Context, subject string) (EventStream, error)
}

// DBClient reads from the event store.
type DBClient struct {
	api StreamAPI
}

// ReadEvents yields the events of subject in order; a failure is yielded
// once, as the last item.
// From: thenativeweb/eventsourcingdb-client-golang#39
// bug: foldedtimeout
func (c *DBClient) ReadEvents(ctx context.Context, subject string) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		stream, err := c.api.Open(ctx, subject)
		if err != nil {
			yield(StoredEvent{}, fmt.Errorf("open stream for %s: %w", subject, err))
			return
		}
		defer stream.Close()
		for {
			ev, err := stream.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(StoredEvent{}, errors.New("read events of "+subject+": "+err.Error()))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// ReadEventsNearMiss yields the events of subject in order; a failure is
// yielded once, as the last item.
// ok: foldedtimeout
func (c *DBClient) ReadEventsNearMiss(ctx context.Context, subject string) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		stream, err := c.api.Open(ctx, subject)
		if err != nil {
			yield(StoredEvent{}, fmt.Errorf("open stream for %s: %w", subject, err))
			return
		}
		defer stream.Close()
		for {
			ev, err := stream.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(StoredEvent{}, fmt.Errorf("read events of %s: %w", subject, err))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}
