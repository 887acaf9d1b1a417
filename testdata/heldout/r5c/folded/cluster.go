package folded

import (
	"context"
	"log"
)

// Endpoint is one cluster member.
type Endpoint interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// ClusterError aggregates per-endpoint failures. It has no Unwrap and its
// text never mentions the causes.
type ClusterError struct {
	Errors []error
}

// Error reports the cluster as unavailable.
// ok: foldedtimeout
func (e *ClusterError) Error() string {
	return "cluster is unavailable or misconfigured"
}

// EndpointErrors aggregates per-endpoint failures and unwraps to all of them.
type EndpointErrors struct {
	Errors []error
}

// Error reports the number of failed endpoints.
// ok: foldedtimeout
func (e *EndpointErrors) Error() string {
	return "all endpoints failed"
}

// Unwrap exposes every endpoint failure to errors.Is/As.
// ok: foldedtimeout
func (e *EndpointErrors) Unwrap() []error { return e.Errors }

// ClusterClient reads from the first endpoint that answers.
type ClusterClient struct {
	endpoints []Endpoint
	log       *log.Logger
}

// Do tries each endpoint in turn and stops once ctx is done, but it returns
// the ClusterError aggregate, which hides the causes and cannot be unwrapped,
// so a watcher that checks for context.Canceled to exit quietly treats its own
// cancellation as a cluster outage and retries.
// From: etcd-io/etcd#3208
// bug: foldedtimeout
func (c *ClusterClient) Do(ctx context.Context, key string) ([]byte, error) {
	cerr := &ClusterError{}
	for _, ep := range c.endpoints {
		v, err := ep.Get(ctx, key)
		if err == nil {
			return v, nil
		}
		cerr.Errors = append(cerr.Errors, err)
		if ctx.Err() != nil {
			return nil, cerr
		}
	}
	return nil, cerr
}

// Fetch is the near-miss of Do: once ctx is done it returns ctx.Err() itself,
// and the exhausted-endpoints error unwraps to every cause.
// From: etcd-io/etcd#3208
// ok: foldedtimeout
func (c *ClusterClient) Fetch(ctx context.Context, key string) ([]byte, error) {
	errs := &EndpointErrors{}
	for _, ep := range c.endpoints {
		v, err := ep.Get(ctx, key)
		if err == nil {
			return v, nil
		}
		errs.Errors = append(errs.Errors, err)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, errs
}
