package suitecheck_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vetDiag is one diagnostic of `go vet -json`.
type vetDiag struct {
	Posn           string            `json:"posn"`
	Message        string            `json:"message"`
	SuggestedFixes []json.RawMessage `json:"suggested_fixes"`
}

// finding identifies a diagnostic across edits that move lines: the check,
// the file and the message.
type finding struct{ check, file, message string }

// lineRef matches a message's reference to a line of the file.
var lineRef = regexp.MustCompile(`\bline [0-9]+\b`)

// place is where a finding is, across edits that move lines and change
// messages (a fix of another check may rename the call a message names):
// the check, the file and the enclosing top-level function; text, when
// set, is the finding's line, trimmed.
type place struct{ check, file, fn, text string }

// sourceLine returns line n of file, trimmed, or "".
func sourceLine(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// placeOf returns the place of a diagnostic at file:line.
func placeOf(check, file string, line int) place {
	return place{check: check, file: file, fn: enclosingFunc(file, line)}
}

// enclosingFunc names the top-level declaration of file holding line
// ("T.M" for methods), or "" outside any.
func enclosingFunc(file string, line int) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fset.Position(fd.Pos()).Line > line || fset.Position(fd.End()).Line < line {
			continue
		}
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			return types.ExprString(fd.Recv.List[0].Type) + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
	return ""
}

func (f finding) String() string {
	return fmt.Sprintf("%s: %s: %s", filepath.Base(f.file), f.check, f.message)
}

// A scratch is a copy of real code the fixes may rewrite.
type scratch struct {
	name string
	dir  string   // where to run the go command
	env  []string // extra environment
}

func (s scratch) run(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), s.env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// vetJSON runs go vet -json with the tool (or go vet's own analyzers, for
// bin == "") and returns the findings; fixable holds those with a fix.
func (s scratch) vetJSON(t *testing.T, bin string) (all, fixable []finding) {
	all, fixable, _ = s.vetPlaces(t, bin)
	return all, fixable
}

// vetPlaces is vetJSON that also returns each finding's place, and the
// places of the fixable ones.
func (s scratch) vetPlaces(t *testing.T, bin string) (all, fixable []finding, places []place) {
	all, fixable, places, _ = s.vetPlaced(t, bin)
	return all, fixable, places
}

// vetPlaced is vetPlaces that also returns the places of the fixable
// findings; its places carry the text of the finding's line.
func (s scratch) vetPlaced(t *testing.T, bin string) (all, fixable []finding, places, fixablePlaces []place) {
	t.Helper()
	args := []string{"vet", "-json"}
	if bin != "" {
		args = append(args, "-vettool="+bin)
	}
	out, _ := s.run(t, append(args, "./...")...)
	// The output is a stream of JSON objects (package -> analyzer ->
	// diagnostics or {"error": ...}) between "# package" comment lines.
	var buf bytes.Buffer
	for line := range strings.Lines(string(out)) {
		if !strings.HasPrefix(line, "#") {
			buf.WriteString(line)
		}
	}
	dec := json.NewDecoder(&buf)
	for {
		var obj map[string]map[string]json.RawMessage
		if err := dec.Decode(&obj); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: cannot decode go vet -json output: %v\n%s", s.name, err, out)
		}
		for _, byCheck := range obj {
			for check, raw := range byCheck {
				var diags []vetDiag
				if err := json.Unmarshal(raw, &diags); err != nil {
					t.Errorf("%s: %s: %s", s.name, check, raw)
					continue
				}
				for _, d := range diags {
					file, rest, _ := strings.Cut(d.Posn, ":")
					lineText, _, _ := strings.Cut(rest, ":")
					line, _ := strconv.Atoi(lineText)
					if filepath.IsAbs(file) && !strings.HasPrefix(file, s.dir+string(filepath.Separator)) {
						// A finding in a dependency outside the scratch tree
						// (the module cache): go vet -fix never edits it, so
						// it says nothing about the fixes under test.
						continue
					}
					// "defined on line 174" (lostcancel) moves with
					// every edit above it: compare without the number.
					f := finding{check, file, lineRef.ReplaceAllString(d.Message, "line N")}
					all = append(all, f)
					p := placeOf(check, file, line)
					p.text = sourceLine(file, line)
					places = append(places, p)
					if len(d.SuggestedFixes) > 0 {
						fixable = append(fixable, f)
						fixablePlaces = append(fixablePlaces, p)
					}
				}
			}
		}
	}
	return all, fixable, places, fixablePlaces
}

// snapshot hashes every Go file under dir.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		m[path] = sha256.Sum256(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// maxRounds bounds the rounds of fixes: a fix may expose a finding that
// was hidden on purpose (a caller's fold is quiet while its callee already
// destroys the error's identity; fixing the callee exposes the caller),
// and the next round fixes that one.
const maxRounds = 3

// checkFixes applies every fix the suite suggests in s, round after round
// until nothing changes, and checks that each round builds, that go vet
// finds nothing it did not find before, that no fixed finding is reported
// again, that the rounds converge, and that the fixed code has no finding
// of any check in a place (check, file, function) that had none before.
func checkFixes(t *testing.T, bin string, s scratch) {
	t.Helper()
	if out, err := s.run(t, "build", "./..."); err != nil {
		t.Fatalf("%s does not build before the fixes:\n%s", s.name, out)
	}
	vetBefore, _ := s.vetJSON(t, "")
	before, fixable, placesBefore, fixablePlaces := s.vetPlaced(t, bin)
	t.Logf("%s: %d findings, %d with fixes", s.name, len(before), len(fixable))
	if len(fixable) == 0 {
		return
	}
	// Findings are compared as multisets of (place, message): two findings
	// of a function may share a message, and only one of them may have been
	// fixed; a fix may expose a finding with the same message in another
	// function (a caller whose fold was quiet while its callee's error
	// was already fresh), which the next round fixes.
	type at struct {
		place
		message string
	}
	count := func(fs []finding, ps []place) map[at]int {
		m := map[at]int{}
		for i, f := range fs {
			m[at{ps[i], f.message}]++
		}
		return m
	}
	nBefore := count(before, placesBefore)
	converged := false
	for round := 1; round <= maxRounds+1; round++ {
		orig := snapshot(t, s.dir)
		if out, err := s.run(t, "vet", "-vettool="+bin, "-fix", "./..."); err != nil && bytes.Contains(out, []byte("conflict")) {
			t.Errorf("%s: round %d: go vet -fix reported conflicting fixes:\n%s", s.name, round, out)
		} else if err != nil && bytes.Contains(out, []byte("fix")) {
			t.Logf("%s: round %d: go vet -fix: %s", s.name, round, firstLines(out, 5))
		}
		changed := 0
		for f, h := range snapshot(t, s.dir) {
			if orig[f] != h {
				changed++
			}
		}
		t.Logf("%s: round %d of fixes changed %d files", s.name, round, changed)
		if changed == 0 {
			if round == 1 {
				t.Errorf("%s: %d findings have fixes but go vet -fix changed no file", s.name, len(fixable))
			}
			converged = true
			break
		}
		if round > maxRounds {
			break
		}
		if out, err := s.run(t, "build", "./..."); err != nil {
			t.Errorf("%s does not build after round %d of fixes:\n%s", s.name, round, out)
			return
		}
		if round == 1 {
			// A fixed finding is reported again when a finding of its
			// check, function and message remains on a line with the same
			// text: the fix did not change that line's code.
			after, _, placesAfter, _ := s.vetPlaced(t, bin)
			nFixed, nAfter := count(fixable, fixablePlaces), count(after, placesAfter)
			for f, n := range nFixed {
				if nAfter[f] > nBefore[f]-n {
					t.Errorf("%s: fixed finding reported again, in %s: %s: %s: %s", s.name, f.fn, filepath.Base(f.file), f.check, f.message)
				}
			}
		}
	}
	if !converged {
		t.Errorf("%s: the fixes do not converge: round %d still changed files", s.name, maxRounds+1)
	}

	vetAfter, _ := s.vetJSON(t, "")
	for _, f := range vetAfter {
		if !slices.Contains(vetBefore, f) {
			t.Errorf("%s: go vet finds something new after the fixes: %v", s.name, f)
		}
	}
	after, _, placesAfter := s.vetPlaces(t, bin)
	had := map[place]int{}
	for _, p := range placesBefore {
		p.text = "" // lines the fixes edited
		had[p]++
	}
	for i, p := range placesAfter {
		p.text = ""
		if had[p] > 0 {
			had[p]--
			continue
		}
		t.Errorf("%s: new finding after the fixes, in %s: %v", s.name, p.fn, after[i])
	}
}

// checkStandaloneFix applies the fixes with cancelcheck -fix itself (its
// own edit application, import clean-up and formatting, not go vet's) to
// s, twice, and checks that the result builds and that go vet finds
// nothing new.
func checkStandaloneFix(t *testing.T, bin string, s scratch) {
	t.Helper()
	vetBefore, _ := s.vetJSON(t, "")
	for range 2 {
		cmd := exec.Command(bin, "-fix", "./...")
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), s.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("%s: cancelcheck -fix: %v\n%s", s.name, err, out)
			}
		}
	}
	if out, err := s.run(t, "build", "./..."); err != nil {
		t.Errorf("%s does not build after cancelcheck -fix:\n%s", s.name, out)
		return
	}
	vetAfter, _ := s.vetJSON(t, "")
	for _, f := range vetAfter {
		if !slices.Contains(vetBefore, f) {
			t.Errorf("%s: go vet finds something new after cancelcheck -fix: %v", s.name, f)
		}
	}
}

// copyTree copies src into dst, writable.
func copyTree(t *testing.T, src, dst string, keep func(rel string, d fs.DirEntry) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if keep != nil && rel != "." && !keep(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o777)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listedPackage is the part of `go list -json` copyPackages reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct{ Path, Version string }
	GoFiles, CgoFiles, IgnoredGoFiles, SFiles, HFiles, CFiles,
	EmbedFiles []string
}

// copyPackages copies, into a scratch module named modPath, the non-test
// files of the packages of module modPath that patterns need (resolved in
// this repository's module), with a go.mod that requires the other modules
// they import at the versions this repository uses.
func copyPackages(t *testing.T, dst, modPath string, patterns ...string) scratch {
	t.Helper()
	root := repoRoot(t)
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", patterns, err)
	}
	requires := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Standard || p.Module == nil {
			continue
		}
		if p.Module.Path != modPath {
			requires[p.Module.Path] = p.Module.Version
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modPath), "/")
		dir := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.IgnoredGoFiles, p.SFiles, p.HFiles, p.CFiles, p.EmbedFiles} {
			for _, name := range list {
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				data, err := os.ReadFile(filepath.Join(p.Dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var mod strings.Builder
	fmt.Fprintf(&mod, "module %s\n\ngo 1.26\n", modPath)
	for path, v := range requires {
		fmt.Fprintf(&mod, "\nrequire %s %s\n", path, v)
	}
	if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte(mod.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "go.sum"), sum, 0o666); err != nil {
		t.Fatal(err)
	}
	return scratch{name: modPath, dir: dst, env: moduleEnv}
}

var moduleEnv = []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GONOSUMDB=*", "GOSUMDB=off"}

// TestFixSoundness applies every suggested fix of the suite to copies of
// real code from the module cache and to the checks' own fixtures, and
// checks the results (see checkFixes).
func TestFixSoundness(t *testing.T) {
	e2e(t)
	bin := buildTool(t)
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("xsync", func(t *testing.T) {
		// A whole module, tests included: errgroup, semaphore, singleflight.
		src := filepath.Join(strings.TrimSpace(string(modcache)), "golang.org", "x", "sync@v0.24.0")
		if _, err := os.Stat(src); err != nil {
			t.Skip("golang.org/x/sync@v0.24.0 is not in the module cache")
		}
		dst := t.TempDir()
		copyTree(t, src, dst, nil)
		checkFixes(t, bin, scratch{name: "golang.org/x/sync", dir: dst, env: moduleEnv})
	})
	t.Run("xtools", func(t *testing.T) {
		dst := t.TempDir()
		s := copyPackages(t, dst, "golang.org/x/tools",
			"golang.org/x/tools/go/packages", "golang.org/x/tools/go/analysis/checker",
			"golang.org/x/tools/go/analysis/unitchecker", "golang.org/x/tools/internal/gocommand",
			"golang.org/x/tools/internal/jsonrpc2", "golang.org/x/tools/internal/jsonrpc2_v2")
		checkFixes(t, bin, s)
	})
	t.Run("honnef", func(t *testing.T) {
		dst := t.TempDir()
		s := copyPackages(t, dst, "honnef.co/go/tools", "honnef.co/go/tools/cmd/staticcheck")
		checkFixes(t, bin, s)
	})
	t.Run("dirs", func(t *testing.T) {
		// Other modules, such as the triaged services of docs/triage.md,
		// given as CANCELCHECK_FIXSOUND_DIRS=dir1:dir2 (their dependencies
		// must be in the module cache). Each is copied first.
		dirs := os.Getenv("CANCELCHECK_FIXSOUND_DIRS")
		if dirs == "" {
			t.Skip("set CANCELCHECK_FIXSOUND_DIRS to check the fixes on other modules")
		}
		for _, dir := range filepath.SplitList(dirs) {
			t.Run(filepath.Base(dir), func(t *testing.T) {
				dst := t.TempDir()
				copyTree(t, dir, dst, func(rel string, d fs.DirEntry) bool {
					return !d.IsDir() || d.Name() != ".git"
				})
				checkFixes(t, bin, scratch{name: filepath.Base(dir), dir: dst, env: moduleEnv})
			})
		}
	})
	t.Run("heldout", func(t *testing.T) {
		// The independent batches written from real bug reports: code
		// written by others, each a module with its own go line.
		mods, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "heldout", "*", "go.mod"))
		if len(mods) == 0 {
			t.Fatal("no held-out batches")
		}
		for _, mod := range mods {
			batch := filepath.Base(filepath.Dir(mod))
			t.Run(batch, func(t *testing.T) {
				dst := t.TempDir()
				copyTree(t, filepath.Dir(mod), dst, nil)
				checkFixes(t, bin, scratch{name: "heldout " + batch, dir: dst, env: moduleEnv})
				dst = t.TempDir()
				copyTree(t, filepath.Dir(mod), dst, nil)
				checkStandaloneFix(t, bin, scratch{name: "heldout " + batch, dir: dst, env: moduleEnv})
			})
		}
	})
	t.Run("eval", func(t *testing.T) {
		// The regression corpus, a GOPATH tree.
		for _, standalone := range []bool{false, true} {
			dst := t.TempDir()
			copyTree(t, filepath.Join(repoRoot(t), "testdata", "eval"), dst, nil)
			s := scratch{name: "eval", dir: filepath.Join(dst, "src"),
				env: []string{"GOPATH=" + dst, "GO111MODULE=off", "GOFLAGS=", "GOTOOLCHAIN=local"}}
			if standalone {
				checkStandaloneFix(t, bin, s)
			} else {
				checkFixes(t, bin, s)
			}
		}
	})
	t.Run("fixtures", func(t *testing.T) {
		// The checks' own fixtures, positives included: every fix applied
		// at once, in GOPATH mode (module mode for fixture modules).
		for _, tree := range copyFixtures(t, t.TempDir(), nil) {
			s := scratch{name: tree.check + " fixtures " + filepath.Base(tree.dir), dir: tree.dir, env: moduleEnv}
			if tree.gopath {
				// Fixes may import the runtime module: put it in GOPATH.
				// Packages the fixtures stub themselves are left alone.
				rt := filepath.Join(tree.dir, "src", "github.com", "cancelcheck", "cancelcheck", "rt")
				stubbed := map[string]bool{}
				if entries, err := os.ReadDir(rt); err == nil {
					for _, e := range entries {
						stubbed[e.Name()] = e.IsDir()
					}
				}
				copyTree(t, filepath.Join(repoRoot(t), "rt"), rt, func(rel string, d fs.DirEntry) bool {
					first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
					if stubbed[first] {
						return false
					}
					return d.IsDir() || strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
				})
				s.dir = filepath.Join(tree.dir, "src")
				s.name = tree.check + " fixtures src"
				s.env = []string{"GOPATH=" + tree.dir, "GO111MODULE=off", "GOFLAGS=", "GOTOOLCHAIN=local"}
			}
			t.Run(tree.check+"/"+filepath.Base(s.dir), func(t *testing.T) { checkFixes(t, bin, s) })
		}
	})
}

// firstLines returns the first n lines of out, for logs.
func firstLines(out []byte, n int) string {
	lines := bytes.SplitN(out, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
