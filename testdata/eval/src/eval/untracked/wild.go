package untracked

import (
	"context"
	"net/http"
)

type Processor struct {
	sink Sink
}

// ok: untrackedgo
func (p *Processor) process(r *http.Request) {
	_ = p.sink.Emit(r.Context(), Event{Kind: "req", Path: r.URL.Path})
}

// The request itself is handed to a goroutine that outlives the handler.
//
// bug: untrackedgo
func (p *Processor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	go p.process(r)
	w.WriteHeader(http.StatusAccepted)
}

// ok: untrackedgo
func (p *Processor) ServeHTTPOK(w http.ResponseWriter, r *http.Request) {
	r2 := r.Clone(context.WithoutCancel(r.Context()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.process(r2)
	}()
	<-done
	w.WriteHeader(http.StatusOK)
}
