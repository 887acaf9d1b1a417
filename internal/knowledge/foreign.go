package knowledge

// ForeignLinters maps the linters whose ground a check of this suite
// covers to those checks: a `//nolint:<linter>` comment, golangci-lint's
// suppression, records a reviewer's judgment that the code is deliberate
// (`s.aiHealth.Start(context.Background()) //nolint:contextcheck //
// outlives Start`), and the same judgment holds for the check that reports
// the same thing (passes/directives reads such comments as
// //cancelcheck:ignore directives of those checks). govet is not listed:
// its nolint covers dozens of analyzers besides lostcancel.
var ForeignLinters = map[string][]string{
	"contextcheck":  {"detachedctx"},
	"noctx":         {"detachedctx"},
	"bodyclose":     {"leaseleak"},
	"sqlclosecheck": {"leaseleak"},
	"spancheck":     {"leaseleak"},
	"errorlint":     {"foldedtimeout"},
	"nilerr":        {"swallowcancel"},
}
