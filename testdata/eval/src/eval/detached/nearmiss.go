package detached

import (
	"context"
	"time"
)

type Janitor struct {
	cache  Cache
	ctx    context.Context
	cancel context.CancelFunc
}

// The janitor owns a root context for its whole life.
//
// ok: detachedctx
func NewJanitor(c Cache) *Janitor {
	j := &Janitor{cache: c}
	j.ctx, j.cancel = context.WithCancel(context.Background())
	go j.loop(context.Background())
	return j
}

// ok: detachedctx
func (j *Janitor) loop(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-j.ctx.Done():
			return
		case <-t.C:
			_ = j.cache.Set(j.ctx, "janitor", []byte(time.Now().String()))
		}
	}
}

// ok: detachedctx
func (j *Janitor) Stop() {
	j.cancel()
}

// The caller gets a context scoped to the server, not to its request.
//
// ok: detachedctx
func (s *Server) Detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(context.WithoutCancel(ctx))
}
