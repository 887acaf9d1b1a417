package knowledge

// valueContexts maps "pkg.Func" and "pkg.Type.Method" to the index of the
// context parameter of APIs whose first result is that context with values
// added and nothing else: no deadline, no cancellation of its own. Their
// bodies are out of reach (interface methods) or in packages analysed
// without facts; for this package and its imports, ctxflow's AddsValues
// fact says the same from the bodies.
var valueContexts = map[string]int{
	// OpenTelemetry: a span in the context (Tracer.Start returns
	// trace.ContextWithSpan(ctx, span)), baggage.
	"go.opentelemetry.io/otel/trace.Tracer.Start":                 0,
	"go.opentelemetry.io/otel/trace.ContextWithSpan":              0,
	"go.opentelemetry.io/otel/trace.ContextWithSpanContext":       0,
	"go.opentelemetry.io/otel/trace.ContextWithRemoteSpanContext": 0,
	"go.opentelemetry.io/otel/baggage.ContextWithBaggage":         0,
	"go.opentelemetry.io/otel/baggage.ContextWithoutBaggage":      0,
	"google.golang.org/grpc/metadata.NewOutgoingContext":          0,
	"google.golang.org/grpc/metadata.NewIncomingContext":          0,
	"google.golang.org/grpc/metadata.AppendToOutgoingContext":     0,
	"github.com/opentracing/opentracing-go.ContextWithSpan":       0,
	"go.opencensus.io/trace.NewContext":                           0,
	"go.opentelemetry.io/otel/trace/noop.Tracer.Start":            0,
	"go.opentelemetry.io/otel/sdk/trace.tracer.Start":             0,
}

// ValueContext returns the index of the context parameter of pkg.typ.name
// when the API is known to return that context with values only, or -1.
func ValueContext(pkg, typ, name string) int {
	if i, ok := valueContexts[key(pkg, typ, name)]; ok {
		return i
	}
	return -1
}
