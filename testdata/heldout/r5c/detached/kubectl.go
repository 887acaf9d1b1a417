package detached

import (
	"context"
	"fmt"
	"io"
	"os/exec"
)

// Kubectl wraps the kubectl binary.
type Kubectl struct {
	bin       string
	namespace string
}

// StreamLogs follows a pod's logs into w until ctx ends. The process is
// started with exec.Command, so canceling ctx does not stop
// `kubectl logs --follow`, which keeps running, and keeps the caller blocked
// in Run, forever.
// From: smartcontractkit/chainlink-env#478
// bug: detachedctx
func (k *Kubectl) StreamLogs(ctx context.Context, pod string, w io.Writer) error {
	cmd := exec.Command(k.bin, "logs", "--follow", "-n", k.namespace, pod)
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl logs %s: %w", pod, err)
	}
	return nil
}

// StreamEvents is the near-miss of StreamLogs: exec.CommandContext kills the
// process when ctx ends.
// From: smartcontractkit/chainlink-env#478
// ok: detachedctx
func (k *Kubectl) StreamEvents(ctx context.Context, w io.Writer) error {
	cmd := exec.CommandContext(ctx, k.bin, "get", "events", "--watch", "-n", k.namespace)
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl get events: %w", err)
	}
	return nil
}
