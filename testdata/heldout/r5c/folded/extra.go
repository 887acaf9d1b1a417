package folded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// waitLeader waits until leader() reports a leader. The abort is logged with
// %v, but the value returned is ctx.Err() itself, so nothing is folded.
// ok: foldedtimeout
func (c *ClusterClient) waitLeader(ctx context.Context, leader func() bool, poll time.Duration) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for !leader() {
		select {
		case <-ctx.Done():
			c.log.Printf("leader wait aborted: %v", ctx.Err())
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// WaitLeader exposes waitLeader.
// ok: foldedtimeout
func (c *ClusterClient) WaitLeader(ctx context.Context, leader func() bool) error {
	return c.waitLeader(ctx, leader, 100*time.Millisecond)
}

// writeError maps err to an HTTP status and writes its text. The error ends
// here (it becomes the response body), and the status distinguishes deadline
// from cancellation, so formatting it with %v loses nothing.
// ok: foldedtimeout
func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code = http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		code = 499 // client closed request
	}
	http.Error(w, fmt.Sprintf("request failed: %v", err), code)
}

// HandleGet serves a key through the cluster client.
// ok: foldedtimeout
func (c *ClusterClient) HandleGet(w http.ResponseWriter, r *http.Request) {
	v, err := c.Fetch(r.Context(), r.URL.Query().Get("key"))
	if err != nil {
		writeError(w, err)
		return
	}
	_, _ = w.Write(v)
}
