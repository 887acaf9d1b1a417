// Package retry holds examples of retry, poll and reconnect loops that keep
// going after their context is done.
package retry

import (
	"context"
	"time"

	"heldoutr5c/internal/store"
)

// TxStatus is a transaction's lifecycle state.
type TxStatus int

const (
	StatusPending TxStatus = iota
	StatusExecuted
	StatusSealed
)

// TxResult is what the access node reports for a transaction.
type TxResult struct {
	ID     string
	Status TxStatus
}

// ResultFetcher queries an access node.
type ResultFetcher interface {
	GetTransactionResult(ctx context.Context, id string) (*TxResult, error)
}

// TxClient polls transaction results.
type TxClient struct {
	rpc      ResultFetcher
	interval time.Duration
}

// WaitForSealed polls until the transaction is sealed. A failed fetch
// `continue`s straight back to the top of the loop, skipping the select that
// both waits and watches ctx; once ctx expires every fetch fails immediately
// and the loop spins at full speed forever.
// From: onflow/flow-go#955
// bug: retrycancel
func (c *TxClient) WaitForSealed(ctx context.Context, id string) (*TxResult, error) {
	for {
		res, err := c.rpc.GetTransactionResult(ctx, id)
		if err != nil {
			continue
		}
		if res.Status == StatusSealed {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.interval):
		}
	}
}

// WaitForExecuted is the near-miss of WaitForSealed: a failed fetch falls
// through to the same select as a pending result, so every iteration waits
// and sees ctx.Done.
// From: onflow/flow-go#955
// ok: retrycancel
func (c *TxClient) WaitForExecuted(ctx context.Context, id string) (*TxResult, error) {
	for {
		res, err := c.rpc.GetTransactionResult(ctx, id)
		if err == nil && res.Status >= StatusExecuted {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.interval):
		}
	}
}

// WaitForFinal looks like WaitForSealed — a failed or pending fetch
// `continue`s — but the loop starts with a ctx check and the context-aware
// store.Sleep runs before every continue, so cancellation ends it.
// ok: retrycancel
func (c *TxClient) WaitForFinal(ctx context.Context, id string) (*TxResult, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := c.rpc.GetTransactionResult(ctx, id)
		if err != nil || res.Status != StatusSealed {
			if err := store.Sleep(ctx, c.interval); err != nil {
				return nil, err
			}
			continue
		}
		return res, nil
	}
}
