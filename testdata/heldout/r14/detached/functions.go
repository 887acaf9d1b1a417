package detached

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Broker carries request/reply messages to function services.
type Broker interface {
	Request(ctx context.Context, subject string, payload []byte) ([]byte, error)
}

// Authorizer checks whether a token may call a function.
type Authorizer interface {
	IsFuncCallAuthorised(ctx context.Context, project, service, function, token string) error
}

// FunctionsModule invokes remote functions.
type FunctionsModule struct {
	broker Broker
}

// Call invokes service.function and waits at most timeout for the reply.
// It has no context of its own to inherit from, so it starts one.
//
// ok: detachedctx
func (m *FunctionsModule) Call(service, function string, params []byte, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return m.broker.Request(ctx, service+"."+function, params)
}

// CallContext is Call bounded by the caller's ctx as well.
//
// ok: detachedctx
func (m *FunctionsModule) CallContext(ctx context.Context, service, function string, params []byte, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return m.broker.Request(ctx, service+"."+function, params)
}

// functionsRequest is the body of a call.
type functionsRequest struct {
	Params  json.RawMessage `json:"params"`
	Timeout int             `json:"timeout"`
}

// HandleFunctionCall authorises and forwards a function call.
//
// From: spacecloud-io/space-cloud#517
// bug: detachedctx
func HandleFunctionCall(fns *FunctionsModule, auth Authorizer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		project, service, function := r.PathValue("project"), r.PathValue("service"), r.PathValue("func")
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()

		var req functionsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := auth.IsFuncCallAuthorised(ctx, project, service, function, r.Header.Get("Authorization")); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		result, err := fns.Call(service, function, req.Params, time.Duration(req.Timeout)*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(result)
	}
}

// HandleFunctionCallNearMiss forwards the request's context into the call.
//
// ok: detachedctx
func HandleFunctionCallNearMiss(fns *FunctionsModule, auth Authorizer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		project, service, function := r.PathValue("project"), r.PathValue("service"), r.PathValue("func")
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()

		var req functionsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := auth.IsFuncCallAuthorised(ctx, project, service, function, r.Header.Get("Authorization")); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		result, err := fns.CallContext(ctx, service, function, req.Params, time.Duration(req.Timeout)*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(result)
	}
}
