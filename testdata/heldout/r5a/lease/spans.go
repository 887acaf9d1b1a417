package lease

import (
	"context"
	"fmt"

	"heldoutr5a/internal/trace"
)

// Scope is what a scan covers.
type Scope struct {
	Namespaces []string
}

// ResourceSet is the collected cluster resources.
type ResourceSet struct {
	Objects int
}

// Policy is one control to evaluate.
type Policy struct {
	ID string
}

// Finding is one evaluation result.
type Finding struct {
	PolicyID string
	Failed   bool
}

// ResourceHandler collects resources.
type ResourceHandler interface {
	Collect(ctx context.Context, s Scope) (*ResourceSet, error)
}

// Evaluator evaluates one policy.
type Evaluator interface {
	Evaluate(ctx context.Context, p Policy) ([]Finding, error)
}

// Scanner runs a cluster scan with tracing.
type Scanner struct {
	tracer  *trace.Tracer
	handler ResourceHandler
	eval    Evaluator
}

// collectResources starts the "resources" span and ends it only on success; the error path records
// the error on the span and returns with the span still open, so it is never exported.
// From: kubescape/kubescape#3664
// bug: leaseleak
func (s *Scanner) collectResources(ctx context.Context, scope Scope) (*ResourceSet, error) {
	ctx, span := s.tracer.Start(ctx, "resources")
	rs, err := s.handler.Collect(ctx, scope)
	if err != nil {
		span.RecordError(err)
		return nil, fmt.Errorf("collect resources: %w", err)
	}
	span.End()
	return rs, nil
}

// collectResourcesDeferred defers span.End right after Start.
// ok: leaseleak
func (s *Scanner) collectResourcesDeferred(ctx context.Context, scope Scope) (*ResourceSet, error) {
	ctx, span := s.tracer.Start(ctx, "resources")
	defer span.End()
	rs, err := s.handler.Collect(ctx, scope)
	if err != nil {
		span.RecordError(err)
		return nil, fmt.Errorf("collect resources: %w", err)
	}
	return rs, nil
}

// evaluatePolicies ends the "policies" span on the error and success paths but not on the
// cancellation check at the top of the loop, so every canceled scan leaves an open span behind.
// From: kubescape/kubescape#3664
// bug: leaseleak
func (s *Scanner) evaluatePolicies(ctx context.Context, policies []Policy) ([]Finding, error) {
	ctx, span := s.tracer.Start(ctx, "policies")
	var out []Finding
	for _, p := range policies {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := s.eval.Evaluate(ctx, p)
		if err != nil {
			span.RecordError(err)
			span.End()
			return nil, fmt.Errorf("evaluate %s: %w", p.ID, err)
		}
		out = append(out, f...)
	}
	span.End()
	return out, nil
}

// evaluatePoliciesEnded ends the span on the cancellation path as well.
// ok: leaseleak
func (s *Scanner) evaluatePoliciesEnded(ctx context.Context, policies []Policy) ([]Finding, error) {
	ctx, span := s.tracer.Start(ctx, "policies")
	var out []Finding
	for _, p := range policies {
		if err := ctx.Err(); err != nil {
			span.RecordError(err)
			span.End()
			return nil, err
		}
		f, err := s.eval.Evaluate(ctx, p)
		if err != nil {
			span.RecordError(err)
			span.End()
			return nil, fmt.Errorf("evaluate %s: %w", p.ID, err)
		}
		out = append(out, f...)
	}
	span.End()
	return out, nil
}

// Scan runs the whole scan; its span is ended by trace.EndWithError in a defer, which also records
// the named result error.
// ok: leaseleak
func (s *Scanner) Scan(ctx context.Context, scope Scope, policies []Policy) (findings []Finding, err error) {
	ctx, span := s.tracer.Start(ctx, "scan")
	defer trace.EndWithError(span, &err)
	if _, err = s.collectResourcesDeferred(ctx, scope); err != nil {
		return nil, err
	}
	return s.evaluatePoliciesEnded(ctx, policies)
}
