package retry

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"heldoutr5c/internal/store"
)

// Completer is a language-model client.
type Completer interface {
	Complete(ctx context.Context, prompt string) (string, error)
}

// Decision is the model's tool choice.
type Decision struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Agent asks a model which tool to run.
type Agent struct {
	llm         Completer
	maxAttempts int
	backoff     time.Duration
}

// parseDecision decodes the model's reply.
// ok: retrycancel
func parseDecision(s string) (Decision, error) {
	var d Decision
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return Decision{}, fmt.Errorf("decode decision: %w", err)
	}
	return d, nil
}

// Decide asks the model for a decision, retrying failed calls. store.Pause
// wakes early on cancellation but reports nothing, and the loop never looks at
// ctx, so a canceled decision burns through every remaining attempt back to
// back instead of stopping.
// From: mudler/cogito#52
// bug: retrycancel
func (a *Agent) Decide(ctx context.Context, prompt string) (Decision, error) {
	var lastErr error
	for attempt := range a.maxAttempts {
		out, err := a.llm.Complete(ctx, prompt)
		if err == nil {
			return parseDecision(out)
		}
		lastErr = err
		store.Pause(ctx, store.Backoff(attempt, a.backoff, 10*time.Second))
	}
	return Decision{}, fmt.Errorf("decision after %d attempts: %w", a.maxAttempts, lastErr)
}

// DecideStreaming is the near-miss of Decide: the wait uses store.Sleep,
// which returns ctx.Err() when the context ends, and that error stops the
// loop. The check lives in the helper.
// From: mudler/cogito#52
// ok: retrycancel
func (a *Agent) DecideStreaming(ctx context.Context, prompt string) (Decision, error) {
	var lastErr error
	for attempt := range a.maxAttempts {
		out, err := a.llm.Complete(ctx, prompt)
		if err == nil {
			return parseDecision(out)
		}
		lastErr = err
		if err := store.Sleep(ctx, store.Backoff(attempt, a.backoff, 10*time.Second)); err != nil {
			return Decision{}, err
		}
	}
	return Decision{}, fmt.Errorf("decision after %d attempts: %w", a.maxAttempts, lastErr)
}

// Summarize retries through the store.Attempts iterator. The loop body has no
// ctx check, but the iterator stops yielding (and stops waiting) as soon as
// ctx is done, and the final ctx check reports the cancellation.
// ok: retrycancel
func (a *Agent) Summarize(ctx context.Context, text string) (string, error) {
	var lastErr error
	for range store.Attempts(ctx, a.maxAttempts, a.backoff) {
		out, err := a.llm.Complete(ctx, "summarize: "+text)
		if err == nil {
			return out, nil
		}
		lastErr = err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "", lastErr
}
