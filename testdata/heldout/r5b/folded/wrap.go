// Package folded holds folded-timeout cases: context.Canceled and
// context.DeadlineExceeded losing their identity on the way up.
package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"heldoutr5b/internal/store"
)

// ObjectReader reads objects out of a bucket-shaped key space.
type ObjectReader struct {
	c      *store.Client
	bucket string
}

// NewObjectReader returns a reader for bucket.
// ok: foldedtimeout
func NewObjectReader(c *store.Client, bucket string) *ObjectReader {
	return &ObjectReader{c: c, bucket: bucket}
}

// ReadObject formats the Get error with %v. The config fetcher above it
// asks errors.Is(err, context.DeadlineExceeded) to stop retrying, which is
// now always false, so an expired deadline is retried as a generic failure.
// From: GoogleCloudPlatform/esp-v2#515
// bug: foldedtimeout
func (r *ObjectReader) ReadObject(ctx context.Context, name string) ([]byte, error) {
	v, err := r.c.Get(ctx, r.bucket+"/"+name)
	if err != nil {
		return nil, fmt.Errorf("read gs://%s/%s: %v", r.bucket, name, err)
	}
	return v, nil
}

// ReadObjectWrapped wraps with %w so errors.Is still finds the deadline.
// ok: foldedtimeout
func (r *ObjectReader) ReadObjectWrapped(ctx context.Context, name string) ([]byte, error) {
	v, err := r.c.Get(ctx, r.bucket+"/"+name)
	if err != nil {
		return nil, fmt.Errorf("read gs://%s/%s: %w", r.bucket, name, err)
	}
	return v, nil
}

// FetchConfig retries transient failures and gives up on a context error;
// it only works if the reader below it kept the error's identity.
// ok: foldedtimeout
func FetchConfig(ctx context.Context, r *ObjectReader, name string) ([]byte, error) {
	var lastErr error
	for range 3 {
		v, err := r.ReadObjectWrapped(ctx, name)
		if err == nil {
			return v, nil
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// RPCClient issues request/response pairs over the store.
type RPCClient struct {
	c       *store.Client
	service string
}

// NewRPCClient returns a client for service.
// ok: foldedtimeout
func NewRPCClient(c *store.Client, service string) *RPCClient {
	return &RPCClient{c: c, service: service}
}

// Call annotates failures in a deferred closure using %s, which flattens
// context.Canceled into text: the caller's "was this canceled?" check fails
// and shutdown-time cancellations are reported as RPC failures.
// From: block/ftl#4233
// bug: foldedtimeout
func (cl *RPCClient) Call(ctx context.Context, method string, req []byte) (resp []byte, err error) {
	start := time.Now()
	defer func() {
		if err != nil {
			err = fmt.Errorf("rpc %s.%s after %s: %s", cl.service, method, time.Since(start).Round(time.Millisecond), err)
		}
	}()
	if err = cl.c.Put(ctx, "rpc/"+method+"/req", req); err != nil {
		return nil, err
	}
	return cl.c.Get(ctx, "rpc/"+method+"/resp")
}

// CallWrapped annotates in the same deferred closure but with %w.
// ok: foldedtimeout
func (cl *RPCClient) CallWrapped(ctx context.Context, method string, req []byte) (resp []byte, err error) {
	start := time.Now()
	defer func() {
		if err != nil {
			err = fmt.Errorf("rpc %s.%s after %s: %w", cl.service, method, time.Since(start).Round(time.Millisecond), err)
		}
	}()
	if err = cl.c.Put(ctx, "rpc/"+method+"/req", req); err != nil {
		return nil, err
	}
	return cl.c.Get(ctx, "rpc/"+method+"/resp")
}

// ErrDeviceNotFound is returned for an unknown device id.
var ErrDeviceNotFound = errors.New("device not found")

// Device is a registered device.
type Device struct {
	ID      string
	Profile []byte
}

// DeviceStore is the device registry's database layer.
type DeviceStore struct {
	c *store.Client
}

// NewDeviceStore returns a registry over c.
// ok: foldedtimeout
func NewDeviceStore(c *store.Client) *DeviceStore { return &DeviceStore{c: c} }

// GetDevice converts backend failures into database errors by copying the
// message into errors.New, so a canceled or timed-out request surfaces as
// a generic "database:" error and the API maps it to 500 Internal instead
// of Canceled/DeadlineExceeded.
// From: TheThingsNetwork/lorawan-stack#2087
// bug: foldedtimeout
func (s *DeviceStore) GetDevice(ctx context.Context, id string) (*Device, error) {
	v, err := s.c.Get(ctx, "devices/"+id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrDeviceNotFound
		}
		return nil, errors.New("database: " + err.Error())
	}
	return &Device{ID: id, Profile: v}, nil
}

// GetDeviceWrapped wraps the backend error so context errors pass through
// with their identity.
// ok: foldedtimeout
func (s *DeviceStore) GetDeviceWrapped(ctx context.Context, id string) (*Device, error) {
	v, err := s.c.Get(ctx, "devices/"+id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrDeviceNotFound
		}
		return nil, fmt.Errorf("database: %w", err)
	}
	return &Device{ID: id, Profile: v}, nil
}

// RegisterDevice validates the id before touching the store. The
// errors.New here is a fresh validation error, not a copy of a context
// error, and the store error is wrapped with %w.
// ok: foldedtimeout
func (s *DeviceStore) RegisterDevice(ctx context.Context, id string, profile []byte) error {
	if id == "" || len(id) > 36 {
		return errors.New("device id must be 1-36 characters")
	}
	if err := s.c.Put(ctx, "devices/"+id, profile); err != nil {
		return fmt.Errorf("register %s: %w", id, err)
	}
	return nil
}

// RemoteError is a peer node's failure as it travels between nodes: plain
// strings only.
type RemoteError struct {
	Node    string
	Message string
}

// Error implements error.
// ok: foldedtimeout
func (e *RemoteError) Error() string { return e.Node + ": " + e.Message }

// WireError is RemoteError plus the original cause for local callers.
type WireError struct {
	Node    string
	Message string
	cause   error
}

// Error implements error.
// ok: foldedtimeout
func (e *WireError) Error() string { return e.Node + ": " + e.Message }

// Unwrap exposes the original cause.
// ok: foldedtimeout
func (e *WireError) Unwrap() error { return e.cause }

// NodeClient forwards reads to a peer node.
type NodeClient struct {
	name string
	c    *store.Client
	log  *log.Logger
}

// NewNodeClient returns a client for the named peer.
// ok: foldedtimeout
func NewNodeClient(name string, c *store.Client, l *log.Logger) *NodeClient {
	return &NodeClient{name: name, c: c, log: l}
}

// Forward keeps only err.Error() in the RemoteError's Message field, so the
// coordinator can no longer tell that the peer read hit the statement
// deadline and treats it as a node fault.
// From: cockroachdb/errors#89
// bug: foldedtimeout
func (n *NodeClient) Forward(ctx context.Context, key string) ([]byte, error) {
	v, err := n.c.Get(ctx, key)
	if err != nil {
		return nil, &RemoteError{Node: n.name, Message: err.Error()}
	}
	return v, nil
}

// ForwardWire keeps the same string field for the wire but also the cause,
// reachable through Unwrap.
// ok: foldedtimeout
func (n *NodeClient) ForwardWire(ctx context.Context, key string) ([]byte, error) {
	v, err := n.c.Get(ctx, key)
	if err != nil {
		return nil, &WireError{Node: n.name, Message: err.Error(), cause: err}
	}
	return v, nil
}

// ForwardLogged prints the error with %v for the operator but returns it
// wrapped with %w; the %v only reaches the log.
// ok: foldedtimeout
func (n *NodeClient) ForwardLogged(ctx context.Context, key string) ([]byte, error) {
	v, err := n.c.Get(ctx, key)
	if err != nil {
		n.log.Printf("forward %s to %s: %v", key, n.name, err)
		return nil, fmt.Errorf("forward %s to %s: %w", key, n.name, err)
	}
	return v, nil
}
