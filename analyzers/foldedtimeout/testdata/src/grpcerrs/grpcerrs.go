// Package grpcerrs formats errors that errors.Is cannot match with a
// context's error anyway: %v loses nothing.
package grpcerrs

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go/service/s3/s3iface"
	"google.golang.org/grpc"
)

type lookupClient struct{ cc grpc.ClientConnInterface }

func (c *lookupClient) Lookup(ctx context.Context, name string) (*string, error) {
	out := new(string)
	if err := c.cc.Invoke(ctx, "/filer/Lookup", name, out); err != nil {
		return nil, err
	}
	return out, nil
}

// A gRPC call's error is a status error.
func readConf(ctx context.Context, c *lookupClient) error {
	if _, err := c.Lookup(ctx, "conf"); err != nil {
		return fmt.Errorf("read conf: %v", err)
	}
	return nil
}

// zfsError keeps its cause without Unwrap.
type zfsError struct{ err error }

func (e *zfsError) Error() string { return "zfs: " + e.err.Error() }

func zfsSet(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &zfsError{err: err} // want `zfsError stores err, which may carry cancellation, in field err but has no Unwrap method`
	}
	return nil
}

func setPlaceholder(ctx context.Context) error {
	if err := zfsSet(ctx); err != nil {
		return fmt.Errorf("set placeholder: %s", err)
	}
	return nil
}

// wrapError has Unwrap: the cancellation shows through, and %v hides it.
type wrapError struct{ err error }

func (e *wrapError) Error() string { return e.err.Error() }
func (e *wrapError) Unwrap() error { return e.err }

func wrapSet(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &wrapError{err: err}
	}
	return nil
}

func setWrapped(ctx context.Context) error {
	if err := wrapSet(ctx); err != nil {
		return fmt.Errorf("set: %v", err) // want `fmt.Errorf formats err with %v, so the cancellation it may carry is lost`
	}
	return nil
}

type remoteClient struct{ conn s3iface.S3API }

// aws-sdk-go v1 errors are awserr values without Unwrap; the named result
// is assigned once, from the call.
func (c *remoteClient) readStream(ctx context.Context, key string) (body *string, err error) {
	body, err = c.conn.GetObjectWithContext(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("open %s: %v", key, err)
	}
	return body, nil
}

// The last attempt's status error, or nil when no attempt ran.
func healthCheck(ctx context.Context, c *lookupClient) error {
	var lastErr error
	for range 3 {
		_, err := c.Lookup(ctx, "health")
		if err == nil {
			return nil
		}
		lastErr = err
	}
	return fmt.Errorf("health check failed: %v", lastErr)
}
