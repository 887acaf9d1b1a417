package folded

import (
	"context"
	"fmt"
)

// Node is one step of a compose graph.
type Node interface {
	Name() string
	Invoke(ctx context.Context, in any) (any, error)
}

// internalError reports which node failed. It keeps only the message of
// the cause.
type internalError struct {
	node string
	msg  string
}

// Error implements error.
// ok: foldedtimeout
func (e *internalError) Error() string {
	return fmt.Sprintf("node %s: %s", e.node, e.msg)
}

// nodeError reports which node failed and keeps the cause.
type nodeError struct {
	node  string
	cause error
}

// Error implements error.
// ok: foldedtimeout
func (e *nodeError) Error() string {
	return fmt.Sprintf("node %s: %v", e.node, e.cause)
}

// Unwrap exposes the cause to errors.Is and errors.As.
// ok: foldedtimeout
func (e *nodeError) Unwrap() error {
	return e.cause
}

// Graph runs nodes in sequence.
type Graph struct {
	nodes []Node
}

// Run feeds each node's output to the next. A node that fails because
// the context ended is reported as an internalError holding only the
// message, so errors.Is(err, context.Canceled) is false.
// From: cloudwego/eino#181
// bug: foldedtimeout
func (g *Graph) Run(ctx context.Context, in any) (any, error) {
	cur := in
	for _, n := range g.nodes {
		out, err := n.Invoke(ctx, cur)
		if err != nil {
			return nil, &internalError{node: n.Name(), msg: err.Error()}
		}
		cur = out
	}
	return cur, nil
}

// RunNearMiss keeps the cause behind Unwrap.
// ok: foldedtimeout
func (g *Graph) RunNearMiss(ctx context.Context, in any) (any, error) {
	cur := in
	for _, n := range g.nodes {
		out, err := n.Invoke(ctx, cur)
		if err != nil {
			return nil, &nodeError{node: n.Name(), cause: err}
		}
		cur = out
	}
	return cur, nil
}
