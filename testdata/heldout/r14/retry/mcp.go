package retry

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// ToolServer is a local MCP server process.
type ToolServer interface {
	Start(ctx context.Context) error
	Name() string
}

// MCPToolset keeps one MCP server alive.
type MCPToolset struct {
	server      ToolServer
	maxRestarts int
	log         *slog.Logger
}

// tryRestart brings a crashed server back, doubling the pause between
// attempts from one second up to sixteen.
//
// From: docker/docker-agent#2424
// bug: retrycancel
func (t *MCPToolset) tryRestart(ctx context.Context) error {
	backoff := time.Second
	var lastErr error
	for attempt := 1; attempt <= t.maxRestarts; attempt++ {
		time.Sleep(backoff)
		if lastErr = t.server.Start(ctx); lastErr == nil {
			t.log.Info("mcp server restarted", "server", t.server.Name(), "attempt", attempt)
			return nil
		}
		t.log.Warn("mcp restart failed", "server", t.server.Name(), "attempt", attempt, "err", lastErr)
		backoff = min(backoff*2, 16*time.Second)
	}
	return fmt.Errorf("mcp server %s did not restart after %d attempts: %w", t.server.Name(), t.maxRestarts, lastErr)
}

// tryRestartNearMiss waits out the same backoff on a timer that gives way to
// ctx.
//
// ok: retrycancel
func (t *MCPToolset) tryRestartNearMiss(ctx context.Context) error {
	backoff := time.Second
	var lastErr error
	for attempt := 1; attempt <= t.maxRestarts; attempt++ {
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		if lastErr = t.server.Start(ctx); lastErr == nil {
			t.log.Info("mcp server restarted", "server", t.server.Name(), "attempt", attempt)
			return nil
		}
		t.log.Warn("mcp restart failed", "server", t.server.Name(), "attempt", attempt, "err", lastErr)
		backoff = min(backoff*2, 16*time.Second)
	}
	return fmt.Errorf("mcp server %s did not restart after %d attempts: %w", t.server.Name(), t.maxRestarts, lastErr)
}
