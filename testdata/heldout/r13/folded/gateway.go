package folded

import (
	"context"
	"errors"
	"fmt"
)

// Bucket is a document bucket connection.
type Bucket interface {
	Close() error
}

// BucketOpener dials buckets.
type BucketOpener interface {
	Open(ctx context.Context, name string) (Bucket, error)
	Ping(ctx context.Context, b Bucket) error
}

// DatabaseContext is a gateway database handle.
type DatabaseContext struct {
	Name   string
	bucket Bucket
}

// Gateway opens databases on demand.
type Gateway struct {
	opener BucketOpener
}

// OpenDatabase dials and checks the bucket. The deferred annotation
// rebuilds the error from a formatted string, discarding the original.
// From: couchbase/sync_gateway#3025
// bug: foldedtimeout
func (g *Gateway) OpenDatabase(ctx context.Context, name string) (db *DatabaseContext, err error) {
	defer func() {
		if err != nil {
			err = errors.New(fmt.Sprintf("error initializing database %q: %v", name, err))
		}
	}()
	b, err := g.opener.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := g.opener.Ping(ctx, b); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return &DatabaseContext{Name: name, bucket: b}, nil
}

// OpenDatabaseNearMiss annotates with %w in the deferred closure.
// ok: foldedtimeout
func (g *Gateway) OpenDatabaseNearMiss(ctx context.Context, name string) (db *DatabaseContext, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("error initializing database %q: %w", name, err)
		}
	}()
	b, err := g.opener.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := g.opener.Ping(ctx, b); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return &DatabaseContext{Name: name, bucket: b}, nil
}
