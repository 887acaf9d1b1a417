package fix

import "context"

type refresher struct {
	life context.Context
	pull func(ctx context.Context) error
}

func (r *refresher) Kick() {
	go func() {
		_ = r.pull(context.Background()) // want `context.Background\(\) in the goroutine started by Kick cuts its work under r.pull off from r.life`
	}()
}
