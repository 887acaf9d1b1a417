package untrackedgo_imports

import "context"

// A local named scope: the import needs another name.
func flush(ctx context.Context, scope []string) error {
	if len(scope) == 0 {
		return nil
	}
	go func() { // want `goroutine uses the context ctx of flush`
		for _, s := range scope {
			if err := store(ctx, s); err != nil {
				return
			}
		}
	}()
	return nil
}
