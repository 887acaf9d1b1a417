package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// The end-to-end test builds golangci-lint v2.15.0 with this plugin, from
// the module proxy's copy of its source, and runs it on testdata/e2e. It
// takes minutes when nothing is cached, so it runs only with
// CANCELCHECK_E2E=1 (scripts/test.sh sets it). The binary is cached under
// $(go env GOCACHE)/../cancelcheck-gcl, keyed by a hash of this module's
// sources.

const gclVersion = "v2.15.0"

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// sourceKey hashes what the custom binary is built from: the module's Go
// files (not tests or testdata), go.mod and go.sum, and the Go version.
func sourceKey(t *testing.T, root string) string {
	h := sha256.New()
	h.Write([]byte(runtime.Version() + "\x00" + gclVersion + "\x00"))
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel == ".":
			case d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "docs":
				return filepath.SkipDir
			default:
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (rt/)
				}
			}
			return nil
		}
		if rel == "go.mod" || rel == "go.sum" || strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(f + "\x00"))
		h.Write(data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// customGolangci returns the path of golangci-lint built with this
// plugin, building it if it is not cached.
func customGolangci(t *testing.T) string {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(filepath.Dir(goEnv(t, "GOCACHE")), "cancelcheck-gcl")
	bin := filepath.Join(cacheDir, "golangci-lint-"+sourceKey(t, root))
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	t.Logf("building golangci-lint %s with the plugin (minutes when the build cache is cold)", gclVersion)
	if err := os.MkdirAll(cacheDir, 0o777); err != nil {
		t.Fatal(err)
	}
	// The documented offline build (docs/ci.md): golangci-lint's source
	// from the module proxy, this checkout as the plugin.
	run(t, root, []string{"GCL_VERSION=" + gclVersion}, "bash", filepath.Join(root, "scripts", "custom-gcl.sh"), bin)
	// Keep only this build: each is about 100 MB.
	old, _ := filepath.Glob(filepath.Join(cacheDir, "golangci-lint-*"))
	for _, o := range old {
		if o != bin {
			os.Remove(o)
		}
	}
	return bin
}

type gclIssue struct {
	FromLinter string
	Text       string
	Pos        struct {
		Filename string
		Line     int
	}
}

func TestGolangciLintE2E(t *testing.T) {
	if os.Getenv("CANCELCHECK_E2E") != "1" {
		t.Skip("set CANCELCHECK_E2E=1 to build golangci-lint with the plugin and run it (scripts/test.sh does)")
	}
	bin := customGolangci(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/e2e")); err != nil {
		t.Fatal(err)
	}
	env := []string{"GOWORK=off", "GOFLAGS=-mod=mod", "GOLANGCI_LINT_CACHE=" + t.TempDir()}

	// Findings: the misspelt directive is reported, the one in the
	// function under //nolint:cancelcheck is not.
	cmd := exec.Command(bin, "run", "--output.json.path=stdout", "--show-stats=false", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.Output()
	var report struct{ Issues []gclIssue }
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("golangci-lint JSON: %v\n%s", err, out)
	}
	byFile := map[string][]gclIssue{}
	for _, is := range report.Issues {
		byFile[filepath.Base(is.Pos.Filename)] = append(byFile[filepath.Base(is.Pos.Filename)], is)
		if strings.Contains(is.Text, "(related information)") {
			t.Errorf("a related place became an issue of its own: %+v", is)
		}
	}
	if len(byFile["e2e.go"]) != 1 {
		t.Fatalf("got %d issues in e2e.go, want 1 (the misspelt directive; the one under //nolint is silenced):\n%s", len(byFile["e2e.go"]), out)
	}
	is := byFile["e2e.go"][0]
	if is.FromLinter != "cancelcheck" || is.Pos.Line != 4 || !strings.Contains(is.Text, "names swallowcancell, which is not a cancelcheck check") {
		t.Errorf("unexpected issue %+v", is)
	}
	// fixes.go: one issue per finding, the leak's returns in its message.
	lines := map[int]string{}
	for _, is := range byFile["fixes.go"] {
		lines[is.Pos.Line] = is.Text
	}
	for _, l := range []int{16, 22, 37, 43} {
		if lines[l] == "" {
			t.Errorf("no issue on fixes.go:%d; issues there: %v", l, lines)
		}
	}
	if len(lines) != 4 || len(byFile["fixes.go"]) != 4 {
		t.Errorf("got %d issues in fixes.go, want 4, one per finding: %v", len(byFile["fixes.go"]), byFile["fixes.go"])
	}
	if !strings.Contains(lines[43], "(see line 45: ") || !strings.Contains(lines[43], "; line 48: ") {
		t.Errorf("the leak's message does not name its returns: %q", lines[43])
	}

	// --fix applies the first suggested fix of every finding, alternatives
	// or not.
	cmd = exec.Command(bin, "run", "--fix", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ = cmd.CombinedOutput()
	fixed, err := os.ReadFile(filepath.Join(dir, "e2e.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fixed), "//cancelcheck:ignore swallowcancel a typo") {
		t.Errorf("--fix did not correct the directive:\n%s\n%s", out, fixed)
	}
	fixed, err = os.ReadFile(filepath.Join(dir, "fixes.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"return fetch(ctx)\n",             // detachedctx, first of two fixes
		"ch := make(chan error, 1)",       // orphansend, first of two fixes
		"case <-time.After(time.Second):", // retrycancel
		"ctx, cancel := context.WithTimeout(ctx, time.Second)\n\tdefer cancel()", // leaseleak
	} {
		if !strings.Contains(string(fixed), want) {
			t.Errorf("--fix did not apply %q:\n%s\n%s", want, out, fixed)
		}
	}

	// A misspelt setting fails the run, naming the key.
	cfg := filepath.Join(dir, ".golangci.yml")
	data, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "checks:", "chekcs:", 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "run", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown key "chekcs"`) {
		t.Errorf("misspelt setting: %v\n%s", err, out)
	}
}
