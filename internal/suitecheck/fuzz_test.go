package suitecheck_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/passrun"
)

// fuzzStd are the standard packages fuzz inputs may import, loaded once from
// export data; the fixtures' own std imports are added to them.
var fuzzStd = []string{
	"context", "database/sql", "errors", "fmt", "io", "log", "net/http",
	"os", "os/exec", "strings", "sync", "sync/atomic", "time",
}

// stdImporter loads paths (and so their dependencies) from export data into
// fset and returns an importer over them.
func stdImporter(tb testing.TB, fset *token.FileSet, paths []string) types.Importer {
	tb.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports, Fset: fset}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		tb.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	var add func(p *types.Package)
	add = func(p *types.Package) {
		if byPath[p.Path()] != nil {
			return
		}
		byPath[p.Path()] = p
		for _, q := range p.Imports() {
			add(q)
		}
	}
	for _, p := range pkgs {
		if p.Types != nil && len(p.Errors) == 0 {
			add(p.Types)
		}
	}
	return importerFunc(func(path string) (*types.Package, error) {
		if p := byPath[path]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("fuzz importer: package %q not loaded", path)
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// fuzzSeeds returns the Go files of every check's fixtures that import only
// standard packages, with the set of those packages.
func fuzzSeeds(tb testing.TB) (seeds [][]byte, std []string) {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(tb), "analyzers", "*", "testdata", "src", "*", "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(repoRoot(tb), "analyzers", "*", "testdata", "*", "*", "*.go"))
	files = append(files, more...)
	slices.Sort(files)
	files = slices.Compact(files)
	need := map[string]bool{}
	for _, p := range fuzzStd {
		need[p] = true
	}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			continue
		}
		stdOnly := true
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if path == "C" || strings.Contains(strings.Split(path, "/")[0], ".") || !isStd(path) {
				stdOnly = false
				break
			}
		}
		if !stdOnly {
			continue
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			need[path] = true
		}
		seeds = append(seeds, src)
	}
	for p := range need {
		std = append(std, p)
	}
	slices.Sort(std)
	return seeds, std
}

// isStd reports whether path looks like a standard package: a first element
// without a dot that is not a fixture's own package (fixture packages are
// single-element paths such as "a" or "fix"; no standard package used by
// fixtures is).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	if strings.Contains(first, ".") {
		return false
	}
	switch first {
	case "archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto", "database",
		"embed", "encoding", "errors", "expvar", "flag", "fmt", "go", "hash", "html", "image", "io",
		"iter", "log", "maps", "math", "mime", "net", "os", "path", "reflect", "regexp", "runtime",
		"slices", "sort", "strconv", "strings", "sync", "syscall", "testing", "text", "time",
		"unicode", "unique", "unsafe", "weak":
		return true
	}
	return false
}

// FuzzSuite mutates fixture sources, type-checks what still parses, and runs
// the whole suite on what still type-checks: no analyzer may panic or fail,
// and every suggested fix must apply cleanly (edits inside the file, not
// overlapping) and leave code that parses.
//
//	go test -run='^$' -fuzz='^FuzzSuite$' -fuzztime=30s ./internal/suitecheck/
//
// Without -fuzz, `go test` runs the seeds: each fixture file on its own.
// FUZZSUITE_SKIP=check,... leaves checks out, for triage only: to fuzz the
// others while one check's reported bug is being fixed.
func FuzzSuite(f *testing.F) {
	var suite []*analysis.Analyzer
	skip := strings.Split(os.Getenv("FUZZSUITE_SKIP"), ",")
	for _, a := range analyzers.All() {
		if !slices.Contains(skip, a.Name) {
			suite = append(suite, a)
		}
	}
	seeds, std := fuzzSeeds(f)
	for _, s := range seeds {
		f.Add(s)
	}
	fset := token.NewFileSet()
	imp := stdImporter(f, fset, std)
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(suite) == 0 {
			t.Skip("no checks registered")
		}
		// pass.ReadFile reads the file system: give the source a file.
		n++
		name := filepath.Join(dir, fmt.Sprintf("in%d.go", n%8))
		if err := os.WriteFile(name, src, 0o666); err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return
		}
		info := passrun.NewInfo()
		conf := &types.Config{Importer: imp, Error: func(error) {}, GoVersion: "go1.26"}
		pkg, err := conf.Check(file.Name.Name, fset, []*ast.File{file}, info)
		if err != nil {
			return // only what type-checks is analyzed, as under go vet
		}
		diags, err := passrun.Run(&passrun.Package{Fset: fset, Files: []*ast.File{file}, Types: pkg, Info: info}, suite)
		if err != nil {
			t.Fatalf("%v\n--- input:\n%s", err, src)
		}
		tf := fset.File(file.FileStart)
		for _, d := range diags {
			for _, fix := range d.SuggestedFixes {
				fixed, err := applyEdits(tf, src, fix.TextEdits)
				if err != nil {
					t.Fatalf("%s: %s fix %q: %v\n--- input:\n%s", fset.Position(d.Pos), d.Analyzer.Name, fix.Message, err, src)
				}
				if _, err := parser.ParseFile(token.NewFileSet(), "fixed.go", fixed, parser.ParseComments); err != nil {
					t.Fatalf("%s: %s fix %q leaves code that does not parse: %v\n--- input:\n%s\n--- fixed:\n%s",
						fset.Position(d.Pos), d.Analyzer.Name, fix.Message, err, src, fixed)
				}
			}
		}
	})
}

// applyEdits applies edits to src, the content of tf. Edits must lie in tf
// and must not overlap; insertions at one point apply in order.
func applyEdits(tf *token.File, src []byte, edits []analysis.TextEdit) ([]byte, error) {
	type off struct {
		start, end int
		text       []byte
	}
	var offs []off
	for _, e := range edits {
		end := e.End
		if !end.IsValid() {
			end = e.Pos
		}
		if !e.Pos.IsValid() || int(e.Pos) < tf.Base() || int(end) > tf.Base()+tf.Size() || end < e.Pos {
			return nil, fmt.Errorf("edit [%d,%d) outside the file [%d,%d]", e.Pos, end, tf.Base(), tf.Base()+tf.Size())
		}
		offs = append(offs, off{int(e.Pos) - tf.Base(), int(end) - tf.Base(), e.NewText})
	}
	slices.SortStableFunc(offs, func(a, b off) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	var out bytes.Buffer
	last := 0
	for _, o := range offs {
		if o.start < last {
			return nil, fmt.Errorf("edits overlap at offset %d", o.start)
		}
		out.Write(src[last:o.start])
		out.Write(o.text)
		last = o.end
	}
	out.Write(src[last:])
	return out.Bytes(), nil
}
