// Package detached holds code that has a caller's context in reach and
// either passes it on or drops it.
package detached

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Report is a merged topology report.
type Report struct {
	Nodes map[string][]string `json:"nodes"`
}

// ReportStore returns reports for a point in time.
type ReportStore interface {
	Report(ctx context.Context, ts time.Time) (Report, error)
}

// parseTimestamp reads ?timestamp=unix or defaults to now.
//
// ok: detachedctx
func parseTimestamp(r *http.Request) time.Time {
	if s := r.URL.Query().Get("timestamp"); s != "" {
		if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(secs, 0)
		}
	}
	return time.Now()
}

// TopologyHandler serves the topology for a timestamp.
type TopologyHandler struct {
	store ReportStore
}

// ServeHTTP renders the report for the requested time.
//
// From: weaveworks/scope#3380
// bug: detachedctx
func (h *TopologyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rpt, err := h.store.Report(context.Background(), parseTimestamp(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rpt)
}

// TopologyHandlerNearMiss is TopologyHandler using the request context.
type TopologyHandlerNearMiss struct {
	store ReportStore
}

// ServeHTTP renders the report for the requested time.
//
// ok: detachedctx
func (h *TopologyHandlerNearMiss) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rpt, err := h.store.Report(r.Context(), parseTimestamp(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rpt)
}
