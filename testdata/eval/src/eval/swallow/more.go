package swallow

import "context"

// A best-effort flush on the way out of a failure: the failure is returned.
//
// ok: swallowcancel
func (s *Syncer) PutAndFlush(ctx context.Context, it Item) error {
	if err := s.store.Put(ctx, it); err != nil {
		_ = s.idx.Flush(ctx)
		return err
	}
	return s.idx.Flush(ctx)
}
