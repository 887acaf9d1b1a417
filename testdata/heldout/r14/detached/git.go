package detached

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// GitRepository is a repository on disk.
type GitRepository struct {
	path    string
	timeout time.Duration
}

// run executes git with args inside the repository and returns stdout,
// killing git if it runs longer than the repository's timeout.
//
// From: gogs/git-module#95
// bug: detachedctx
func (r *GitRepository) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.path
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	timer := time.AfterFunc(r.timeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// runNearMiss ties git to ctx, with the repository timeout applied on top.
//
// ok: detachedctx
func (r *GitRepository) runNearMiss(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.path
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// RevParse resolves rev to a commit ID.
//
// ok: detachedctx
func (r *GitRepository) RevParse(ctx context.Context, rev string) (string, error) {
	out, err := r.runNearMiss(ctx, "rev-parse", rev)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
