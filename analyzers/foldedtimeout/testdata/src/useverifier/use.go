// Package useverifier wraps the errors of another package's interfaces.
package useverifier

import (
	"context"
	"fmt"
	"net/http"

	"verifier"
)

// Near miss: every implementation of Verifier in its package flattens its
// errors, so the %v here loses nothing.
func Session(ctx context.Context, v verifier.Verifier, token string) (string, error) {
	id, err := v.Verify(ctx, token)
	if err != nil {
		return "", fmt.Errorf("verify id_token: %v", err)
	}
	return id, nil
}

// One implementation of Fetcher keeps the cancellation: the %v loses it.
func Document(ctx context.Context, f verifier.Fetcher) ([]byte, error) {
	b, err := f.Fetch(ctx, "https://example/doc")
	if err != nil {
		return nil, fmt.Errorf("fetch document: %v", err) // want `fmt.Errorf formats err with %v`
	}
	return b, nil
}

// Near miss: Groups never fails, so the branch never runs.
func Member(ctx context.Context, hc *http.Client, user string) (bool, error) {
	gs, err := verifier.Groups(ctx, hc, user)
	if err != nil {
		return false, fmt.Errorf("groups of %s: %v", user, err)
	}
	return len(gs) > 0, nil
}

// Near miss: every Recorder of its package uses the context for values
// only, so its error carries no cancellation.
func Audit(ctx context.Context, r verifier.Recorder) error {
	if err := r.Record(ctx, "login"); err != nil {
		return fmt.Errorf("audit: %v", err)
	}
	return nil
}

// A Handler of its package only delegates: the handler at the end of the
// chain may be canceled.
func Serve(ctx context.Context, h verifier.Handler) error {
	if err := h.Handle(ctx, "req"); err != nil {
		return fmt.Errorf("serve: %v", err) // want `fmt.Errorf formats err with %v`
	}
	return nil
}

