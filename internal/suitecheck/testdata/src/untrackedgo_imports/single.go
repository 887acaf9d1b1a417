package untrackedgo_imports

import "context"

func store(ctx context.Context, s string) error { return ctx.Err() }

// The fix imports the runtime's scope package into a file whose only import
// is unparenthesised.
func save(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	go func() { // want `goroutine uses the context ctx of save`
		if err := store(ctx, s); err != nil {
			return
		}
		store(ctx, s+".bak")
	}()
	return nil
}
