package a

import "context"

// golangci-lint's contextcheck was told this detachment is deliberate; the
// judgment holds here too.
func NolintContextcheck(ctx context.Context, s *Store) error {
	return s.Save(context.Background(), "x") //nolint:contextcheck // the write must land even if the client leaves
}

// Without an explanation, and on the line above.
func NolintAbove(ctx context.Context, s *Store) error {
	//nolint:noctx,contextcheck
	return s.Save(context.Background(), "x")
}

// Near miss: a nolint for an unrelated linter silences nothing here.
func NolintOther(ctx context.Context, s *Store) error {
	return s.Save(context.Background(), "x") //nolint:errcheck // want `cuts off ctx`
}
