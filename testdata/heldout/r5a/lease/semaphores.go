package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"
)

var errNoSlot = errors.New("runner: no free slot for sequence")

// slotTable maps sequences to KV-cache slots.
type slotTable struct {
	mu   sync.Mutex
	free []int
}

// find takes a free slot.
// ok: leaseleak
func (t *slotTable) find() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.free) == 0 {
		return 0, false
	}
	s := t.free[len(t.free)-1]
	t.free = t.free[:len(t.free)-1]
	return s, true
}

// Runner limits parallel sequences with a buffered-channel semaphore.
type Runner struct {
	seqSem chan struct{}
	slots  *slotTable
}

// Sequence holds one semaphore token and one slot until Close.
type Sequence struct {
	runner *Runner
	prompt string
	slot   int
}

// Close releases the sequence's semaphore token.
// ok: leaseleak
func (s *Sequence) Close() {
	<-s.runner.seqSem
}

// NewSequence takes a semaphore token, then a slot. If no slot is found it returns without giving
// the token back, permanently lowering the runner's parallelism until it deadlocks.
// From: ollama/ollama#10005
// bug: leaseleak
func (r *Runner) NewSequence(ctx context.Context, prompt string) (*Sequence, error) {
	select {
	case r.seqSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if prompt == "" {
		<-r.seqSem
		return nil, errors.New("runner: empty prompt")
	}
	slot, ok := r.slots.find()
	if !ok {
		return nil, errNoSlot
	}
	return &Sequence{runner: r, prompt: prompt, slot: slot}, nil
}

// NewSequenceReleasing gives the token back on the no-slot path as well; on success the token is
// owned by the returned Sequence and released by its Close.
// ok: leaseleak
func (r *Runner) NewSequenceReleasing(ctx context.Context, prompt string) (*Sequence, error) {
	select {
	case r.seqSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if prompt == "" {
		<-r.seqSem
		return nil, errors.New("runner: empty prompt")
	}
	slot, ok := r.slots.find()
	if !ok {
		<-r.seqSem
		return nil, errNoSlot
	}
	return &Sequence{runner: r, prompt: prompt, slot: slot}, nil
}

// Txn is a low-level read transaction.
type Txn interface {
	Abort()
}

// Env begins low-level transactions.
type Env interface {
	BeginTxn(ctx context.Context, readOnly bool) (Txn, error)
}

// KV bounds concurrent read transactions with a weighted semaphore.
type KV struct {
	env   Env
	roSem *semaphore.Weighted
}

// ReadTx is an open read transaction holding one unit of roSem.
type ReadTx struct {
	txn     Txn
	release func()
}

// Rollback aborts the transaction and gives back its semaphore unit.
// ok: leaseleak
func (t *ReadTx) Rollback() {
	t.txn.Abort()
	t.release()
}

// BeginRo acquires a read slot and begins a transaction. When BeginTxn fails the slot is never
// released, so repeated failures saturate the semaphore and block every later reader.
// From: ledgerwatch/erigon-lib#516
// bug: leaseleak
func (db *KV) BeginRo(ctx context.Context) (*ReadTx, error) {
	if err := db.roSem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	txn, err := db.env.BeginTxn(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("begin read txn: %w", err)
	}
	return &ReadTx{txn: txn, release: func() { db.roSem.Release(1) }}, nil
}

// BeginRoReleasing releases the slot when BeginTxn fails; on success ReadTx.Rollback releases it.
// ok: leaseleak
func (db *KV) BeginRoReleasing(ctx context.Context) (*ReadTx, error) {
	if err := db.roSem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	txn, err := db.env.BeginTxn(ctx, true)
	if err != nil {
		db.roSem.Release(1)
		return nil, fmt.Errorf("begin read txn: %w", err)
	}
	return &ReadTx{txn: txn, release: func() { db.roSem.Release(1) }}, nil
}

// prioritySemaphore grants weighted holds on a shared semaphore and remembers each holder's weight.
type prioritySemaphore struct {
	mu      sync.Mutex
	sem     *semaphore.Weighted
	holders map[string]int64
	limit   int64
	limitFn func() (int64, error)
}

// acquire takes weight w for key and records the hold.
// ok: leaseleak
func (s *prioritySemaphore) acquire(ctx context.Context, key string, w int64) error {
	if err := s.sem.Acquire(ctx, w); err != nil {
		return err
	}
	s.mu.Lock()
	s.holders[key] = w
	s.mu.Unlock()
	return nil
}

// release drops key's hold. It deletes the holder entry and then refreshes the limit; when that
// fetch fails it returns before s.sem.Release, so the weight is lost for good and the semaphore
// shrinks by it on every transient failure.
// From: argoproj/argo-workflows#16405
// bug: leaseleak
func (s *prioritySemaphore) release(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, held := s.holders[key]
	if !held {
		return nil
	}
	delete(s.holders, key)
	limit, err := s.limitFn()
	if err != nil {
		return fmt.Errorf("get semaphore limit: %w", err)
	}
	s.limit = limit
	s.sem.Release(w)
	return nil
}

// releaseFirst gives the weight back right after removing the holder, before the fallible limit
// refresh, so the hold is released on every path.
// ok: leaseleak
func (s *prioritySemaphore) releaseFirst(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, held := s.holders[key]
	if !held {
		return nil
	}
	delete(s.holders, key)
	s.sem.Release(w)
	limit, err := s.limitFn()
	if err != nil {
		return fmt.Errorf("get semaphore limit: %w", err)
	}
	s.limit = limit
	return nil
}
