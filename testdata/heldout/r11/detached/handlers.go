package detached

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"
)

// Applicant is an application submitted to a club.
type Applicant struct {
	Email  string `json:"email"`
	Name   string `json:"name"`
	Period string `json:"period"`
}

type coreClient interface {
	CreateApplicant(ctx context.Context, a Applicant) (string, error)
	GetStatus(ctx context.Context) (string, error)
}

// Gateway translates REST calls into calls on the core service.
type Gateway struct {
	core coreClient
}

// HandleCreateApplicant decodes an applicant and forwards it to core.
// From: ubclaunchpad/pinpoint#101
// bug: detachedctx
func (g *Gateway) HandleCreateApplicant(w http.ResponseWriter, r *http.Request) {
	var a Applicant
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		http.Error(w, "invalid applicant: "+err.Error(), http.StatusBadRequest)
		return
	}
	if a.Email == "" || a.Period == "" {
		http.Error(w, "email and period are required", http.StatusBadRequest)
		return
	}
	id, err := g.core.CreateApplicant(context.Background(), a)
	if err != nil {
		log.Printf("gateway: create applicant %s: %v", a.Email, err)
		http.Error(w, "could not create applicant", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	if err := json.NewEncoder(w).Encode(map[string]string{"id": id}); err != nil {
		log.Printf("gateway: encode response: %v", err)
	}
}

// HandleCreateApplicantNearMiss forwards the request's context to core.
// ok: detachedctx
func (g *Gateway) HandleCreateApplicantNearMiss(w http.ResponseWriter, r *http.Request) {
	var a Applicant
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		http.Error(w, "invalid applicant: "+err.Error(), http.StatusBadRequest)
		return
	}
	if a.Email == "" || a.Period == "" {
		http.Error(w, "email and period are required", http.StatusBadRequest)
		return
	}
	id, err := g.core.CreateApplicant(r.Context(), a)
	if err != nil {
		log.Printf("gateway: create applicant %s: %v", a.Email, err)
		http.Error(w, "could not create applicant", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	if err := json.NewEncoder(w).Encode(map[string]string{"id": id}); err != nil {
		log.Printf("gateway: encode response: %v", err)
	}
}

// Run is a single Terraform run.
type Run struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspace_id"`
	Status      string `json:"status"`
}

type runService interface {
	Get(ctx context.Context, id string) (*Run, error)
	Cancel(ctx context.Context, id string) error
}

// RunsAPI serves the runs endpoints.
type RunsAPI struct {
	svc runService
}

// CancelRun cancels a run that has not finished yet.
// From: leg100/otf#96
// bug: detachedctx
func (a *RunsAPI) CancelRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("run_id")
	ctx := context.Background()
	run, err := a.svc.Get(ctx, id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if run.Status == "applied" || run.Status == "canceled" {
		http.Error(w, fmt.Sprintf("run %s is already %s", id, run.Status), http.StatusConflict)
		return
	}
	if err := a.svc.Cancel(ctx, id); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// CancelRunNearMiss uses the request context for both service calls.
// ok: detachedctx
func (a *RunsAPI) CancelRunNearMiss(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("run_id")
	ctx := r.Context()
	run, err := a.svc.Get(ctx, id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if run.Status == "applied" || run.Status == "canceled" {
		http.Error(w, fmt.Sprintf("run %s is already %s", id, run.Status), http.StatusConflict)
		return
	}
	if err := a.svc.Cancel(ctx, id); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// RequestEvent is logged once per request.
type RequestEvent struct {
	Endpoint string
	Method   string
	Latency  time.Duration
	Code     int
}

// TopHandler wraps an endpoint with a per-request timeout and logging.
type TopHandler struct {
	timeout time.Duration
	handle  func(ctx context.Context, ev *RequestEvent, w http.ResponseWriter, r *http.Request) int
	logf    func(RequestEvent)
}

// ServeHTTP runs the wrapped endpoint under the configured timeout.
// From: letsencrypt/boulder#5404
// bug: detachedctx
func (th *TopHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	begin := time.Now()
	ev := &RequestEvent{Endpoint: r.URL.Path, Method: r.Method}
	ctx, cancel := context.WithTimeout(context.Background(), th.timeout)
	defer cancel()

	ev.Code = th.handle(ctx, ev, w, r)
	ev.Latency = time.Since(begin)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		log.Printf("%s %s: handler exceeded %s", r.Method, r.URL.Path, th.timeout)
	}
	th.logf(*ev)
}

// ServeHTTPNearMiss derives the timeout from the request's own context.
// ok: detachedctx
func (th *TopHandler) ServeHTTPNearMiss(w http.ResponseWriter, r *http.Request) {
	begin := time.Now()
	ev := &RequestEvent{Endpoint: r.URL.Path, Method: r.Method}
	ctx, cancel := context.WithTimeout(r.Context(), th.timeout)
	defer cancel()

	ev.Code = th.handle(ctx, ev, w, r)
	ev.Latency = time.Since(begin)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		log.Printf("%s %s: handler exceeded %s", r.Method, r.URL.Path, th.timeout)
	}
	th.logf(*ev)
}

// Secret is a Kubernetes secret holding an API key.
type Secret struct {
	Name   string
	Labels map[string]string
	Data   map[string][]byte
}

type secretClient interface {
	List(ctx context.Context, namespace, selector string) ([]Secret, error)
	Delete(ctx context.Context, namespace, name string) error
}

// KeyManager manages per-user API keys stored as secrets.
type KeyManager struct {
	secrets   secretClient
	namespace string
}

// RevokeUserKeys deletes every key belonging to the user named in the path.
// From: opendatahub-io/models-as-a-service#46
// bug: detachedctx
func (m *KeyManager) RevokeUserKeys(w http.ResponseWriter, r *http.Request) {
	user := r.PathValue("user")
	if user == "" {
		http.Error(w, "missing user", http.StatusBadRequest)
		return
	}
	secrets, err := m.secrets.List(context.Background(), m.namespace, "maas/user="+user)
	if err != nil {
		http.Error(w, "list keys: "+err.Error(), http.StatusInternalServerError)
		return
	}
	revoked := 0
	for _, s := range secrets {
		if err := m.secrets.Delete(context.Background(), m.namespace, s.Name); err != nil {
			http.Error(w, "delete key "+s.Name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		revoked++
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]int{"revoked": revoked}); err != nil {
		log.Printf("keys: encode response: %v", err)
	}
}

// RevokeUserKeysNearMiss threads the request context into the client calls.
// ok: detachedctx
func (m *KeyManager) RevokeUserKeysNearMiss(w http.ResponseWriter, r *http.Request) {
	user := r.PathValue("user")
	if user == "" {
		http.Error(w, "missing user", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	secrets, err := m.secrets.List(ctx, m.namespace, "maas/user="+user)
	if err != nil {
		http.Error(w, "list keys: "+err.Error(), http.StatusInternalServerError)
		return
	}
	revoked := 0
	for _, s := range secrets {
		if err := m.secrets.Delete(ctx, m.namespace, s.Name); err != nil {
			http.Error(w, "delete key "+s.Name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		revoked++
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]int{"revoked": revoked}); err != nil {
		log.Printf("keys: encode response: %v", err)
	}
}

type ctxKey string

const requestIDKey ctxKey = "request-id"

// Entity is a record in the entity store.
type Entity map[string]any

type entityStore interface {
	Query(ctx context.Context, entityType, selector string) ([]Entity, error)
}

// EntityAPI serves entity queries.
type EntityAPI struct {
	store        entityStore
	queryTimeout time.Duration
}

// GetEntities runs a label-selector query for one entity type.
// From: block/etre#73
// bug: detachedctx
func (api *EntityAPI) GetEntities(w http.ResponseWriter, r *http.Request) {
	entityType := r.PathValue("type")
	selector := r.URL.Query().Get("query")
	if selector == "" {
		http.Error(w, "missing query", http.StatusBadRequest)
		return
	}
	ctx := context.WithValue(context.Background(), requestIDKey, r.Header.Get("X-Request-Id"))
	ctx, cancel := context.WithTimeout(ctx, api.queryTimeout)
	defer cancel()

	entities, err := api.store.Query(ctx, entityType, selector)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(entities); err != nil {
		log.Printf("entities: encode response: %v", err)
	}
}

// GetEntitiesNearMiss layers its values and timeout on the request context.
// ok: detachedctx
func (api *EntityAPI) GetEntitiesNearMiss(w http.ResponseWriter, r *http.Request) {
	entityType := r.PathValue("type")
	selector := r.URL.Query().Get("query")
	if selector == "" {
		http.Error(w, "missing query", http.StatusBadRequest)
		return
	}
	ctx := context.WithValue(r.Context(), requestIDKey, r.Header.Get("X-Request-Id"))
	ctx, cancel := context.WithTimeout(ctx, api.queryTimeout)
	defer cancel()

	entities, err := api.store.Query(ctx, entityType, selector)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(entities); err != nil {
		log.Printf("entities: encode response: %v", err)
	}
}

type auditSink interface {
	Record(ctx context.Context, action, subject string) error
}

// AuditedDelete deletes a key and records an audit entry that must be
// written even if the client disconnects right after the delete.
// ok: detachedctx
func (m *KeyManager) AuditedDelete(ctx context.Context, audit auditSink, name string) error {
	if err := m.secrets.Delete(ctx, m.namespace, name); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	// The delete has already happened; the audit record is part of its
	// commit, so it keeps the caller's values but not its cancellation,
	// with its own short bound.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := audit.Record(actx, "delete-key", name); err != nil {
		return fmt.Errorf("audit delete %s: %w", name, err)
	}
	return nil
}
