package suitecheck_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestFactsOnlyDependencies checks that facts still cross packages when go
// vet runs the tool on a dependency only for its facts (VetxOnly), where the
// driver runs only the analyzers that export facts. Every finding in
// testdata/factsonly/app depends on a fact about package dep: vetting ./app
// alone (dep facts-only) must report what vetting ./... reports for app.
func TestFactsOnlyDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	bin := buildTool(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/factsonly")); err != nil {
		t.Fatal(err)
	}
	vet := func(pattern string) []string {
		cmd := exec.Command("go", "vet", "-vettool="+bin, pattern)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, _ := cmd.CombinedOutput()
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "app/") || strings.HasPrefix(l, "dep/") {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			t.Fatalf("go vet -vettool %s reported nothing:\n%s", pattern, out)
		}
		return lines
	}
	app := vet("./app")
	// Each finding below needs a fact about dep: ReturnsLease (Scoped) and
	// Sleeps (Backoff). Without dep's Bound (Watch) and NoCancel (Tenant)
	// facts, Watched and Names would be reported too.
	want := []string{
		"app/app.go:11:17: the cancel function of dep.Scoped is not called",
		"app/app.go:44:3: dep.Backoff, which calls time.Sleep, ignores ctx",
	}
	for _, w := range want {
		if !slices.ContainsFunc(app, func(l string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("go vet ./app: missing %q", w)
		}
	}
	for _, l := range app {
		if strings.HasPrefix(l, "app/app.go:") && !strings.HasPrefix(l, "app/app.go:13:3:") &&
			!slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("go vet ./app: unexpected finding %s", l)
		}
	}
	var all []string
	for _, l := range vet("./...") {
		if strings.HasPrefix(l, "app/") {
			all = append(all, l)
		}
	}
	if a, b := findings(app), findings(all); !slices.Equal(a, b) {
		t.Errorf("findings in app differ when dep is vetted in full:\n./app:\n%s\n./...:\n%s",
			strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// findings groups go vet's output lines into findings, each a line with the
// tab-indented related lines after it, and sorts them. Since Go 1.26 the go
// command prints a unit's findings check by check in map order, so their
// order varies from run to run.
func findings(lines []string) []string {
	var out []string
	for _, l := range lines {
		if n := len(out); n > 0 && strings.Contains(l, ": \t") {
			out[n-1] += "\n" + l
			continue
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}
