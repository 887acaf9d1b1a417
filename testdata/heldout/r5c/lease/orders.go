package lease

import (
	"context"
	"encoding/json"
	"net/http"

	"heldoutr5c/internal/store"
)

// CreateOrder is the request body.
type CreateOrder struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// OrderHandler serves the orders API.
type OrderHandler struct {
	tracer *store.Tracer
	db     *store.DB
}

// save persists an order.
// ok: leaseleak
func (h *OrderHandler) save(ctx context.Context, o CreateOrder) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = h.db.Put(ctx, "orders/"+o.SKU, b)
	return err
}

// Create starts a span for the request and ends it with a defer, but the
// defer is registered after the decode early return, so every malformed
// request leaves its span open (never exported, and the tracer's open-span
// table grows without bound).
// From: ardanlabs/service#63
// bug: leaseleak
func (h *OrderHandler) Create(w http.ResponseWriter, r *http.Request) {
	ctx, span := h.tracer.Start(r.Context(), "orders.create")
	var req CreateOrder
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		span.RecordError(err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	defer span.End()
	if err := h.save(ctx, req); err != nil {
		span.RecordError(err)
		http.Error(w, "store failure", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// Update is the near-miss of Create: span.End is deferred immediately after
// Start, before any early return.
// From: ardanlabs/service#63
// ok: leaseleak
func (h *OrderHandler) Update(w http.ResponseWriter, r *http.Request) {
	ctx, span := h.tracer.Start(r.Context(), "orders.update")
	defer span.End()
	var req CreateOrder
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		span.RecordError(err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if err := h.save(ctx, req); err != nil {
		span.RecordError(err)
		http.Error(w, "store failure", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
