package suitecheck_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// repoRoot returns the root of the cancelcheck module.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		tb.Fatal(err)
	}
	return root
}

// A fixtureTree is a copy of one check's testdata, loaded as a unit: a
// GOPATH tree (testdata/src) or a module (testdata/<dir>/go.mod).
type fixtureTree struct {
	check  string // the check whose testdata it is
	dir    string // GOPATH root, or module directory
	gopath bool
}

var replaceRel = regexp.MustCompile(`(?m)=>\s*(\.\.?/\S*)`)

// copyFixtures copies every check's testdata (and this package's) into dst, passing each Go file
// through edit (nil: unchanged), and returns the trees to load. Relative
// replace directives of fixture modules are made absolute, so they still
// point at the repository's rt module.
func copyFixtures(tb testing.TB, dst string, edit func(path string, src []byte) []byte) []fixtureTree {
	tb.Helper()
	root := repoRoot(tb)
	checks, err := filepath.Glob(filepath.Join(root, "analyzers", "*", "testdata"))
	if err != nil {
		tb.Fatal(err)
	}
	// This package's own fix fixtures (build tags, generics, cgo, imports).
	checks = append(checks, filepath.Join(root, "internal", "suitecheck", "testdata"))
	var trees []fixtureTree
	for _, td := range checks {
		check := filepath.Base(filepath.Dir(td))
		out := filepath.Join(dst, check)
		err := filepath.WalkDir(td, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(td, path)
			target := filepath.Join(out, rel)
			if d.IsDir() {
				return os.MkdirAll(target, 0o777)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(path, ".go") && edit != nil:
				data = edit(path, data)
			case d.Name() == "go.mod" && !strings.HasPrefix(rel, "src"+string(filepath.Separator)):
				dir := filepath.Dir(path)
				data = replaceRel.ReplaceAllFunc(data, func(m []byte) []byte {
					sub := replaceRel.FindSubmatch(m)
					return []byte("=> " + filepath.Join(dir, string(sub[1])))
				})
				trees = append(trees, fixtureTree{check: check, dir: filepath.Dir(target)})
			}
			return os.WriteFile(target, data, 0o666)
		})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(out, "src")); err == nil {
			trees = append(trees, fixtureTree{check: check, dir: out, gopath: true})
		}
	}
	return trees
}

// load loads every package of tree, with tests, from source.
func (tree fixtureTree) load(tb testing.TB) []*packages.Package {
	tb.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: true}
	pattern := "./..."
	if tree.gopath {
		cfg.Dir = filepath.Join(tree.dir, "src")
		cfg.Env = append(os.Environ(), "GOPATH="+tree.dir, "GO111MODULE=off", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	} else {
		cfg.Dir = tree.dir
		cfg.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		tb.Fatalf("loading %s fixtures: %v", tree.check, err)
	}
	// Keep the packages that load cleanly: fixtures are made to type-check,
	// but a tree may hold a deliberately broken package.
	var ok []*packages.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			tb.Logf("%s: skipping %s: %v", tree.check, p.ID, p.Errors[0])
			continue
		}
		ok = append(ok, p)
	}
	return ok
}

// analyze runs analyzers over pkgs (facts flowing through dependencies as
// under any driver) and returns the root diagnostics.
func analyze(tb testing.TB, analyzers []*analysis.Analyzer, pkgs []*packages.Package) []rootDiag {
	tb.Helper()
	if len(pkgs) == 0 || len(analyzers) == 0 {
		return nil
	}
	g, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var out []rootDiag
	for _, act := range g.Roots {
		if act.Err != nil {
			tb.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.ID, act.Err)
		}
		for _, d := range act.Diagnostics {
			out = append(out, rootDiag{act.Analyzer, act.Package, d})
		}
	}
	return out
}

type rootDiag struct {
	analyzer *analysis.Analyzer
	pkg      *packages.Package
	analysis.Diagnostic
}
