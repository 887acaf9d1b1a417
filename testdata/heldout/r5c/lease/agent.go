package lease

import (
	"context"
	"time"
)

// AgentClient talks to a workspace agent.
type AgentClient struct {
	pollInterval time.Duration
	status       func(ctx context.Context, id string) (string, error)
}

// WaitForAgent polls the agent every pollInterval until it is connected. The
// ticker is stopped on the error and connected exits, but the cancellation
// return skips Stop, so every abandoned wait leaves its ticker running.
// From: coder/coder#4630
// bug: leaseleak
func (c *AgentClient) WaitForAgent(ctx context.Context, id string) error {
	t := time.NewTicker(c.pollInterval)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			st, err := c.status(ctx, id)
			if err != nil {
				t.Stop()
				return err
			}
			if st == "connected" {
				t.Stop()
				return nil
			}
		}
	}
}

// WaitForReady is the near-miss of WaitForAgent: Stop is deferred once, right
// after the ticker is created, so all three exits release it.
// From: coder/coder#4630
// ok: leaseleak
func (c *AgentClient) WaitForReady(ctx context.Context, id string) error {
	t := time.NewTicker(c.pollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			st, err := c.status(ctx, id)
			if err != nil {
				return err
			}
			if st == "ready" {
				return nil
			}
		}
	}
}
