package detached

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"
)

// BlobStore stores uploaded parts.
type BlobStore interface {
	Put(ctx context.Context, key string, data []byte) error
	Delete(ctx context.Context, key string) error
}

// UploadService writes manifests and their parts.
type UploadService struct {
	store BlobStore
}

// Upload writes the parts and then the manifest. If the manifest write
// fails, already written parts are removed. That cleanup must run even when
// ctx has just been cancelled, so it uses a short-lived context detached
// from ctx's cancellation but keeping its values.
//
// ok: detachedctx
func (s *UploadService) Upload(ctx context.Context, key string, parts [][]byte, manifest []byte) error {
	var written []string
	for i, p := range parts {
		pk := key + ".part" + strconv.Itoa(i)
		if err := s.store.Put(ctx, pk, p); err != nil {
			return err
		}
		written = append(written, pk)
	}
	if err := s.store.Put(ctx, key, manifest); err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		var errs []error
		for _, pk := range written {
			errs = append(errs, s.store.Delete(cctx, pk))
		}
		return errors.Join(append([]error{err}, errs...)...)
	}
	return nil
}

// ConfigSource loads the initial configuration.
type ConfigSource interface {
	Load(ctx context.Context, name string) ([]byte, error)
}

// LoadStartupConfig runs once from main before any request exists; it has
// no caller context to inherit and bounds itself with a timeout.
//
// ok: detachedctx
func LoadStartupConfig(src ConfigSource) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	name := os.Getenv("APP_CONFIG")
	if name == "" {
		name = "default"
	}
	return src.Load(ctx, name)
}

// Querier is a ctx-first lookup.
type Querier func(ctx context.Context, id string) (string, error)

// lookupAll passes a context derived from the parameter under another name.
//
// ok: detachedctx
func lookupAll(parent context.Context, q Querier, ids []string) (map[string]string, error) {
	reqCtx, cancel := context.WithTimeout(parent, 3*time.Second)
	defer cancel()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		v, err := q(reqCtx, id)
		if err != nil {
			return nil, err
		}
		out[id] = v
	}
	return out, nil
}
