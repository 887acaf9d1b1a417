package suitecheck_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
					file, _, _ := strings.Cut(d.Posn, ":")
					if filepath.IsAbs(file) && !strings.HasPrefix(file, s.dir+string(filepath.Separator)) {
						// A finding in a dependency outside the scratch tree
						// (the module cache): go vet -fix never edits it, so
						// it says nothing about the fixes under test.
						continue
					}
					f := finding{check, file, d.Message}
					all = append(all, f)
					if len(d.SuggestedFixes) > 0 {
						fixable = append(fixable, f)
					}
				}
			}
		}
	}
	return all, fixable
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

// checkFixes applies every fix the suite suggests in s and checks that the
// result builds, that go vet finds nothing it did not find before, that no
// fixed finding is reported again, and that applying the fixes once more
// changes nothing unless the first fixes exposed new findings (logged).
func checkFixes(t *testing.T, bin string, s scratch) {
	t.Helper()
	if out, err := s.run(t, "build", "./..."); err != nil {
		t.Fatalf("%s does not build before the fixes:\n%s", s.name, out)
	}
	vetBefore, _ := s.vetJSON(t, "")
	before, fixable := s.vetJSON(t, bin)
	t.Logf("%s: %d findings, %d with fixes", s.name, len(before), len(fixable))
	if len(fixable) == 0 {
		return
	}
	orig := snapshot(t, s.dir)
	if out, err := s.run(t, "vet", "-vettool="+bin, "-fix", "./..."); err != nil && bytes.Contains(out, []byte("conflict")) {
		t.Errorf("%s: go vet -fix reported conflicting fixes:\n%s", s.name, out)
	}
	fixed := snapshot(t, s.dir)
	changed := 0
	for f, h := range fixed {
		if orig[f] != h {
			changed++
		}
	}
	t.Logf("%s: the fixes changed %d files", s.name, changed)
	if changed == 0 {
		t.Errorf("%s: %d findings have fixes but go vet -fix changed no file", s.name, len(fixable))
	}

	if out, err := s.run(t, "build", "./..."); err != nil {
		t.Errorf("%s does not build after the fixes:\n%s", s.name, out)
		return
	}
	vetAfter, _ := s.vetJSON(t, "")
	for _, f := range vetAfter {
		if !slices.Contains(vetBefore, f) {
			t.Errorf("%s: go vet finds something new after the fixes: %v", s.name, f)
		}
	}
	after, afterFixable := s.vetJSON(t, bin)
	// Findings are compared as multisets: two findings of a file may share
	// a message, and only one of them may have been fixed.
	count := func(fs []finding) map[finding]int {
		m := map[finding]int{}
		for _, f := range fs {
			m[f]++
		}
		return m
	}
	nBefore, nFixed, nAfter := count(before), count(fixable), count(after)
	for f, n := range nFixed {
		if nAfter[f] > nBefore[f]-n {
			t.Errorf("%s: fixed finding reported again: %v", s.name, f)
		}
	}
	exposed := 0 // fixable findings the fixes exposed
	for _, f := range after {
		if !slices.Contains(before, f) {
			t.Logf("%s: new finding after the fixes: %v", s.name, f)
			if slices.Contains(afterFixable, f) {
				exposed++
			}
		}
	}

	// Idempotence: fixing again may only act on findings the first fixes
	// exposed, never redo or undo what they did.
	s.run(t, "vet", "-vettool="+bin, "-fix", "./...")
	for f, h := range snapshot(t, s.dir) {
		if fixed[f] != h {
			if exposed == 0 {
				t.Errorf("%s: applying the fixes a second time changed %s, with no new finding to fix (fixes are not idempotent)", s.name, f)
			} else {
				t.Logf("%s: a second round of fixes changed %s (%d new fixable findings)", s.name, filepath.Base(f), exposed)
			}
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
