package a

import "context"

// A result channel joins only the paths that receive from it: the default
// arm returns with every goroutine still running.
func resizeAll(ctx context.Context, imgs []string) error {
	errc := make(chan error, len(imgs))
	for _, img := range imgs {
		go func() { // want `goroutine uses the context ctx of resizeAll, which can return without waiting for it`
			if _, err := fetch(ctx, img); err != nil {
				errc <- err
			}
		}()
	}
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// Near-miss: every path collects one result per element.
func resizeAllCollected(ctx context.Context, imgs []string) error {
	errc := make(chan error, len(imgs))
	for _, img := range imgs {
		go func() {
			_, err := fetch(ctx, img)
			errc <- err
		}()
	}
	var first error
	for range imgs {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}
