package retry

import (
	"context"
	"log"
)

// otelRunner supervises an OpenTelemetry collector subprocess.
type otelRunner struct {
	stop  func() error
	lines <-chan string
	log   *log.Logger
}

// Run forwards collector output until ctx is done. On cancellation it returns
// only if stopping the collector succeeded; when stop fails it logs and
// `continue`s, and because Done stays closed the select fires again at once,
// an endless hot loop that re-calls stop.
// From: orb-community/orb#2876
// bug: retrycancel
func (r *otelRunner) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			if err := r.stop(); err != nil {
				r.log.Printf("stopping collector: %v", err)
				continue
			}
			return
		case line, ok := <-r.lines:
			if !ok {
				return
			}
			r.log.Print(line)
		}
	}
}

// RunUntilDone is the near-miss of Run: a failed stop is logged, but the
// ctx.Done case returns either way.
// From: orb-community/orb#2876
// ok: retrycancel
func (r *otelRunner) RunUntilDone(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			if err := r.stop(); err != nil {
				r.log.Printf("stopping collector: %v", err)
			}
			return
		case line, ok := <-r.lines:
			if !ok {
				return
			}
			r.log.Print(line)
		}
	}
}
