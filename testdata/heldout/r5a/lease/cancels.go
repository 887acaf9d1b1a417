// Package lease holds code that acquires releasable things (cancel funcs, timers, semaphores, locks,
// database handles, HTTP bodies, files, spans, pooled connections) and does or does not release them
// on every path.
package lease

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Cert is one certificate due for renewal.
type Cert struct {
	XMLID   string
	Version int
}

// CertStore reads certificates.
type CertStore interface {
	ExpiringCerts(ctx context.Context) ([]Cert, error)
}

// JobStore records asynchronous job status.
type JobStore interface {
	Insert(ctx context.Context, msg string) (int64, error)
	Finish(ctx context.Context, id int64, err error) error
}

// Renewer renews one certificate.
type Renewer interface {
	Renew(ctx context.Context, c Cert) error
}

// RenewHandler renews all expiring certificates within a budget that scales with their number.
type RenewHandler struct {
	store      CertStore
	jobs       JobStore
	renewer    Renewer
	perCertTTL time.Duration
}

// httpError maps an error to a status code while keeping context errors recognisable.
// ok: leaseleak
func httpError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		http.Error(w, "deadline exceeded", http.StatusGatewayTimeout)
	case errors.Is(err, context.Canceled):
		http.Error(w, "request canceled", 499)
	default:
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// renewAll renews every certificate under ctx and records the outcome on the job.
// ok: leaseleak
func (h *RenewHandler) renewAll(ctx context.Context, jobID int64, certs []Cert) error {
	var errs []error
	for _, c := range certs {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if err := h.renewer.Renew(ctx, c); err != nil {
			errs = append(errs, err)
		}
	}
	err := errors.Join(errs...)
	if ferr := h.jobs.Finish(ctx, jobID, err); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// ServeHTTP derives the renewal context with WithTimeout, then returns on the job-insert error path
// without calling cancel, so that timer and context stay registered with the request context until it
// ends.
// From: apache/trafficcontrol#5836
// bug: leaseleak
func (h *RenewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	certs, err := h.store.ExpiringCerts(r.Context())
	if err != nil {
		httpError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.perCertTTL*time.Duration(len(certs)))
	jobID, err := h.jobs.Insert(ctx, "ACME renewal started")
	if err != nil {
		httpError(w, err)
		return
	}
	err = h.renewAll(ctx, jobID, certs)
	cancel()
	if err != nil {
		httpError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// serveDeferred defers cancel immediately after WithTimeout, covering the insert error path too.
// ok: leaseleak
func (h *RenewHandler) serveDeferred(w http.ResponseWriter, r *http.Request) {
	certs, err := h.store.ExpiringCerts(r.Context())
	if err != nil {
		httpError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.perCertTTL*time.Duration(len(certs)))
	defer cancel()
	jobID, err := h.jobs.Insert(ctx, "ACME renewal started")
	if err != nil {
		httpError(w, err)
		return
	}
	if err := h.renewAll(ctx, jobID, certs); err != nil {
		httpError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Deferred exposes serveDeferred as a handler through a method value.
// ok: leaseleak
func (h *RenewHandler) Deferred() http.Handler {
	return http.HandlerFunc(h.serveDeferred)
}

// StreamRegistry keeps the cancel func of every open stream, keyed by stream id.
type StreamRegistry struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

// NewStreamRegistry returns an empty registry.
// ok: leaseleak
func NewStreamRegistry() *StreamRegistry {
	return &StreamRegistry{cancels: make(map[string]context.CancelFunc)}
}

// Open derives a stream context and stores its cancel under id. If a stream with that id is already
// open its cancel func is overwritten without being called, so the old stream's context is never
// canceled and stays attached to its parent.
// From: polyrabbit/etcdfs#3
// bug: leaseleak
func (r *StreamRegistry) Open(ctx context.Context, id string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancels[id] = cancel
	r.mu.Unlock()
	return ctx
}

// OpenReplacing cancels any previous stream registered under id before storing the new cancel func.
// ok: leaseleak
func (r *StreamRegistry) OpenReplacing(ctx context.Context, id string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	if prev, ok := r.cancels[id]; ok {
		prev()
	}
	r.cancels[id] = cancel
	r.mu.Unlock()
	return ctx
}

// Close forgets the stream, deleting its cancel func from the map without calling it: the child
// context is never removed from its parent's children until the parent itself ends.
// From: nuts-foundation/nuts-node#554
// bug: leaseleak
func (r *StreamRegistry) Close(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cancels, id)
}

// CloseAndCancel calls the stored cancel func before deleting the entry.
// ok: leaseleak
func (r *StreamRegistry) CloseAndCancel(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.cancels[id]; ok {
		cancel()
		delete(r.cancels, id)
	}
}

// TaskState is a container task's status.
type TaskState struct {
	Exited   bool
	ExitCode uint32
}

// TaskStatus reports a task's status.
type TaskStatus interface {
	Status(ctx context.Context) (TaskState, error)
}

// WaitForTaskExit polls the task on a ticker. The exit and error paths stop the ticker, but the
// ctx.Done path returns with the ticker still running.
// From: containerd/containerd#9384
// bug: leaseleak
func WaitForTaskExit(ctx context.Context, task TaskStatus, poll time.Duration) (uint32, error) {
	ticker := time.NewTicker(poll)
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ticker.C:
			st, err := task.Status(ctx)
			if err != nil {
				ticker.Stop()
				return 0, err
			}
			if st.Exited {
				ticker.Stop()
				return st.ExitCode, nil
			}
		}
	}
}

// WaitForTaskExitDeferred defers ticker.Stop right after creating it, so every return stops it.
// ok: leaseleak
func WaitForTaskExitDeferred(ctx context.Context, task TaskStatus, poll time.Duration) (uint32, error) {
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ticker.C:
			st, err := task.Status(ctx)
			if err != nil {
				return 0, err
			}
			if st.Exited {
				return st.ExitCode, nil
			}
		}
	}
}

// LoadBalancer waits TryInterval between upstream attempts.
type LoadBalancer struct {
	TryInterval time.Duration
}

// waitForRetry arms a timer for the retry interval. When ctx ends first it returns with the timer
// still armed; under a burst of canceled requests every one leaves a live timer behind.
// From: caddyserver/caddy#4482
// bug: leaseleak
func (lb *LoadBalancer) waitForRetry(ctx context.Context) error {
	timer := time.NewTimer(lb.TryInterval)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitForRetryStopped stops the timer on the ctx.Done path, as the fix did.
// ok: leaseleak
func (lb *LoadBalancer) waitForRetryStopped(ctx context.Context) error {
	timer := time.NewTimer(lb.TryInterval)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		timer.Stop()
		return ctx.Err()
	}
}
