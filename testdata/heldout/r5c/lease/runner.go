package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"heldoutr5c/internal/store"
)

// ErrNoSlot is returned when the KV cache has no free slot.
var ErrNoSlot = errors.New("no free cache slot")

// Sequence is one running generation; Close releases its parallelism slot.
type Sequence struct {
	tokens  []string
	slot    int
	release func()
}

// Close releases the sequence's slot.
// ok: leaseleak
func (s *Sequence) Close() {
	s.release()
}

// KVCache hands out cache slots.
type KVCache interface {
	Claim(tokens []string) (int, error)
}

// Runner limits concurrent sequences with a semaphore.
type Runner struct {
	sem   *store.Semaphore
	cache KVCache
	vocab map[string]bool
}

// tokenize splits the prompt, giving up when ctx ends.
// ok: leaseleak
func (r *Runner) tokenize(ctx context.Context, prompt string) ([]string, error) {
	var out []string
	for _, w := range strings.Fields(prompt) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !r.vocab[w] {
			return nil, fmt.Errorf("unknown token %q", w)
		}
		out = append(out, w)
	}
	return out, nil
}

// NewSequence takes a parallelism slot, then tokenizes the prompt and claims
// a cache slot. The claim failure releases the slot, but the tokenize failure
// (including a cancellation) returns without Release, permanently shrinking
// parallelism until every request blocks in Acquire.
// From: ollama/ollama#10005
// bug: leaseleak
func (r *Runner) NewSequence(ctx context.Context, prompt string) (*Sequence, error) {
	if err := r.sem.Acquire(ctx); err != nil {
		return nil, err
	}
	tokens, err := r.tokenize(ctx, prompt)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	slot, err := r.cache.Claim(tokens)
	if err != nil {
		r.sem.Release()
		return nil, err
	}
	return &Sequence{tokens: tokens, slot: slot, release: r.sem.Release}, nil
}

// NewEmbedding is the near-miss of NewSequence: both failures after Acquire
// release the slot; on success the Sequence owns it through the release
// method value and gives it back in Close.
// From: ollama/ollama#10005
// ok: leaseleak
func (r *Runner) NewEmbedding(ctx context.Context, prompt string) (*Sequence, error) {
	if err := r.sem.Acquire(ctx); err != nil {
		return nil, err
	}
	tokens, err := r.tokenize(ctx, prompt)
	if err != nil {
		r.sem.Release()
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	slot, err := r.cache.Claim(tokens)
	if err != nil {
		r.sem.Release()
		return nil, err
	}
	return &Sequence{tokens: tokens, slot: slot, release: r.sem.Release}, nil
}
