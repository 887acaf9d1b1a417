package bench_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"golang.org/x/tools/go/packages"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/bench"
	"github.com/cancelcheck/cancelcheck/internal/passrun"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// Sizes of the generated package: the benchmark's is large (about 4,600
// functions, 60,000 lines), the smoke test's small.
const (
	benchFiles, benchFuncs = 60, 80
	smokeFiles, smokeFuncs = 2, 23
)

// load generates a package of the given size into a temporary module and
// loads it with go/packages (dependencies from export data).
func load(tb testing.TB, files, funcs int) *passrun.Prepared {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("no go command")
	}
	dir := tb.TempDir()
	if err := bench.Generate(dir, files, funcs); err != nil {
		tb.Fatal(err)
	}
	cfg := &packages.Config{
		Mode: packages.LoadSyntax | packages.NeedModule,
		Dir:  dir,
		Env:  append(envWithout("GOFLAGS"), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		tb.Fatal(err)
	}
	if len(pkgs) != 1 {
		tb.Fatalf("loaded %d packages, want 1", len(pkgs))
	}
	if packages.PrintErrors(pkgs) > 0 {
		tb.Fatal("generated package does not type-check")
	}
	return passrun.Prepare(passrun.FromPackages(pkgs[0]))
}

// govet is go vet's default suite (cmd/vet's list, as of Go 1.26), the
// cost the suite is measured against.
var govet = []*analysis.Analyzer{
	appends.Analyzer,
	asmdecl.Analyzer,
	assign.Analyzer,
	atomic.Analyzer,
	bools.Analyzer,
	buildtag.Analyzer,
	cgocall.Analyzer,
	composite.Analyzer,
	copylock.Analyzer,
	defers.Analyzer,
	directive.Analyzer,
	errorsas.Analyzer,
	framepointer.Analyzer,
	httpresponse.Analyzer,
	hostport.Analyzer,
	ifaceassert.Analyzer,
	loopclosure.Analyzer,
	lostcancel.Analyzer,
	nilfunc.Analyzer,
	printf.Analyzer,
	shift.Analyzer,
	sigchanyzer.Analyzer,
	slog.Analyzer,
	stdmethods.Analyzer,
	stdversion.Analyzer,
	stringintconv.Analyzer,
	structtag.Analyzer,
	tests.Analyzer,
	testinggoroutine.Analyzer,
	timeformat.Analyzer,
	unmarshal.Analyzer,
	unreachable.Analyzer,
	unsafeptr.Analyzer,
	unusedresult.Analyzer,
	waitgroup.Analyzer,
}

// subjects are the analyzers benchmarked one by one: every check of the
// suite, the shared ctxflow pass on its own (the floor every check pays),
// the whole suite together (shared passes run once), and go vet's default
// suite for comparison.
func subjects() []struct {
	name string
	as   []*analysis.Analyzer
} {
	out := []struct {
		name string
		as   []*analysis.Analyzer
	}{{"ctxflow", []*analysis.Analyzer{ctxflow.Analyzer}}}
	for _, a := range analyzers.All() {
		out = append(out, struct {
			name string
			as   []*analysis.Analyzer
		}{a.Name, []*analysis.Analyzer{a}})
	}
	return append(out, struct {
		name string
		as   []*analysis.Analyzer
	}{"suite", analyzers.All()}, struct {
		name string
		as   []*analysis.Analyzer
	}{"govet", govet})
}

// runOnce analyzes pkg once and returns the number of findings.
func runOnce(tb testing.TB, pkg *passrun.Prepared, as []*analysis.Analyzer) int {
	if len(as) == 0 {
		return 0
	}
	diags, err := pkg.Run(as)
	if err != nil {
		tb.Fatal(err)
	}
	return len(diags)
}

// BenchmarkSuite runs each check, the ctxflow pass and the whole suite over
// a large generated package. findings/op says how much of the package each
// check recognised; a drop to zero means the generator no longer exercises
// it.
//
//	go test -run='^$' -bench=Suite -benchmem ./bench/
func BenchmarkSuite(b *testing.B) {
	pkg := load(b, benchFiles, benchFuncs)
	benchSubjects(b, []*passrun.Prepared{pkg})
}

// BenchmarkReal runs each check and the suite over real packages (default:
// some large standard ones; CANCELCHECK_BENCH_PKGS=p1,p2 to choose), each
// package on its own, as a vet tool sees it.
//
//	go test -run='^$' -bench=Real -benchmem ./bench/
func BenchmarkReal(b *testing.B) {
	paths := []string{"net/http", "database/sql", "os/exec", "go/types", "net"}
	if env := os.Getenv("CANCELCHECK_BENCH_PKGS"); env != "" {
		paths = strings.Split(env, ",")
	}
	cfg := &packages.Config{Mode: packages.LoadSyntax}
	loaded, err := packages.Load(cfg, paths...)
	if err != nil {
		b.Fatal(err)
	}
	var pkgs []*passrun.Prepared
	for _, p := range loaded {
		if len(p.Errors) > 0 {
			b.Fatalf("%s: %v", p.ID, p.Errors[0])
		}
		pkgs = append(pkgs, passrun.Prepare(passrun.FromPackages(p)))
	}
	benchSubjects(b, pkgs)
}

// benchSubjects runs a sub-benchmark per subject, each analyzing every
// package of pkgs once per iteration and reporting the findings.
func benchSubjects(b *testing.B, pkgs []*passrun.Prepared) {
	for _, s := range subjects() {
		b.Run(s.name, func(b *testing.B) {
			if len(s.as) == 0 {
				b.Skip("no checks registered")
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = 0
				for _, p := range pkgs {
					n += runOnce(b, p, s.as)
				}
			}
			b.ReportMetric(float64(n), "findings/op")
		})
	}
}

// TestSmoke runs each benchmark body once on a small generated package, so
// the benchmarks cannot rot between the times someone runs them.
func TestSmoke(t *testing.T) {
	pkg := load(t, smokeFiles, smokeFuncs)
	for _, s := range subjects() {
		t.Run(s.name, func(t *testing.T) {
			n := runOnce(t, pkg, s.as)
			t.Logf("%d findings", n)
		})
	}
}

// envWithout returns the environment without the named variable.
func envWithout(name string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
