// Package passrun runs analyzers in-process over one type-checked package,
// without the go command: the plumbing shared by the suite's benchmarks, its
// fuzz target and its generated-file test.
//
// It hands the package to golang.org/x/tools/go/analysis/checker with its
// imports cut off, so the analyzers (and the passes they require) run on that
// package only; analyzers with facts see no facts from dependencies, as if
// every dependency had exported none. That is the per-package work a vet
// tool does, minus decoding dependencies' facts.
package passrun

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"runtime/debug"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Package is a type-checked package to analyze.
type Package struct {
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info
	// Sizes defaults to the gc sizes for amd64.
	Sizes types.Sizes
	// OtherFiles are the package's non-Go files. pass.ReadFile reads the
	// file system, so the files of Files should exist on disk under the
	// names they were parsed with when a check reads its source.
	OtherFiles []string
}

// Diagnostic is a diagnostic with the analyzer that reported it.
type Diagnostic struct {
	Analyzer *analysis.Analyzer
	analysis.Diagnostic
}

// PanicError is an analyzer panic caught by Run.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("analyzer panicked: %v\n%s", e.Value, e.Stack)
}

// FromPackages turns a package loaded by go/packages (at least
// packages.LoadSyntax) into a Package.
func FromPackages(p *packages.Package) *Package {
	return &Package{
		Fset:       p.Fset,
		Files:      p.Syntax,
		Types:      p.Types,
		Info:       p.TypesInfo,
		Sizes:      p.TypesSizes,
		OtherFiles: p.OtherFiles,
	}
}

// NewInfo returns a types.Info with every map the analyzers may read.
func NewInfo() *types.Info {
	return &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Instances:    make(map[*ast.Ident]types.Instance),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		Scopes:       make(map[ast.Node]*types.Scope),
		FileVersions: make(map[*ast.File]string),
	}
}

// packagesPackage builds the go/packages view the checker wants, with no
// imports so that no analyzer runs on a dependency.
func (p *Package) packagesPackage() *packages.Package {
	sizes := p.Sizes
	if sizes == nil {
		sizes = types.SizesFor("gc", "amd64")
	}
	var goFiles []string
	for _, f := range p.Files {
		if tf := p.Fset.File(f.FileStart); tf != nil {
			goFiles = append(goFiles, tf.Name())
		}
	}
	return &packages.Package{
		ID:              p.Types.Path(),
		Name:            p.Types.Name(),
		PkgPath:         p.Types.Path(),
		GoFiles:         goFiles,
		CompiledGoFiles: goFiles,
		OtherFiles:      p.OtherFiles,
		Fset:            p.Fset,
		Syntax:          p.Files,
		Types:           p.Types,
		TypesInfo:       p.Info,
		TypesSizes:      sizes,
	}
}

// Prepared is a package ready to be analyzed many times.
type Prepared struct {
	pkg *packages.Package
}

// Prepare converts p once, for repeated runs (benchmarks).
func Prepare(p *Package) *Prepared { return &Prepared{pkg: p.packagesPackage()} }

// Run runs analyzers over p sequentially, in the calling goroutine. It
// returns the diagnostics of the analyzers themselves (not of the passes
// they require), sorted by position. An analyzer that panics or fails makes
// Run return an error naming it; a panic's error is a *PanicError wrapped
// with the analyzer's name, with the stack.
func (pp *Prepared) Run(analyzers []*analysis.Analyzer) ([]Diagnostic, error) {
	var (
		diags []Diagnostic
		perr  error
	)
	func() {
		defer func() {
			if v := recover(); v != nil {
				perr = &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
		g, err := checker.Analyze(analyzers, []*packages.Package{pp.pkg}, &checker.Options{Sequential: true})
		if err != nil {
			perr = err
			return
		}
		for act := range g.All() {
			if act.Err != nil && perr == nil {
				perr = fmt.Errorf("%s: %w", act.Analyzer.Name, act.Err)
			}
			if !act.IsRoot {
				continue
			}
			for _, d := range act.Diagnostics {
				diags = append(diags, Diagnostic{Analyzer: act.Analyzer, Diagnostic: d})
			}
		}
	}()
	slices.SortStableFunc(diags, func(a, b Diagnostic) int { return int(a.Pos - b.Pos) })
	return diags, perr
}

// Run is Prepare(p).Run(analyzers).
func Run(p *Package, analyzers []*analysis.Analyzer) ([]Diagnostic, error) {
	return Prepare(p).Run(analyzers)
}
