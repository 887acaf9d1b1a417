package detached

import (
	"context"
	"time"
)

// After the caller's context ended, a short fresh context records the
// abort.
//
// ok: detachedctx
func (s *Server) Finish(ctx context.Context, key string, v []byte) error {
	err := s.cache.Set(ctx, key, v)
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return s.cache.Set(cctx, key+":aborted", nil)
	}
	return err
}
