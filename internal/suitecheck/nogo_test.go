package suitecheck_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docBlocks returns the fenced code blocks of a Markdown file with the
// given info string.
func docBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

var bazelLabel = regexp.MustCompile(`"@com_github_cancelcheck_cancelcheck//([\w/]+)"`)

// TestNogoSnippet builds the nogo binary's analyzer list the way rules_go
// generates it (go/tools/builders/generate_nogo_main.go: each dep imported
// as analyzerN and listed as analyzerN.Analyzer) from the deps that
// docs/ci.md shows and from every check package, and checks what nogo
// relies on: each listed package exports Analyzer, the list validates, the
// names are unique, the keys of the doc's nogo_config.json name analyzers,
// and the doc's configured-check package compiles. Bazel itself is not run.
func TestNogoSnippet(t *testing.T) {
	root := repoRoot(t)
	doc := filepath.Join(root, "docs", "ci.md")
	var deps []string
	for _, b := range docBlocks(t, doc, "python") {
		if !strings.Contains(b, "nogo(") {
			continue
		}
		for _, m := range bazelLabel.FindAllStringSubmatch(b, -1) {
			deps = append(deps, "github.com/cancelcheck/cancelcheck/"+m[1])
		}
	}
	if len(deps) == 0 {
		t.Fatal("docs/ci.md shows no nogo target with cancelcheck deps")
	}
	// Every check package and the directive check must be listable.
	entries, err := os.ReadDir(filepath.Join(root, "analyzers"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, d := range deps {
		all[d] = true
	}
	for _, e := range entries {
		if e.IsDir() {
			all["github.com/cancelcheck/cancelcheck/analyzers/"+e.Name()] = true
		}
	}
	var paths []string
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var configKeys []string
	for _, b := range docBlocks(t, doc, "json") {
		var cfg map[string]struct {
			ExcludeFiles  map[string]string `json:"exclude_files"`
			OnlyFiles     map[string]string `json:"only_files"`
			AnalyzerFlags map[string]string `json:"analyzer_flags"`
		}
		dec := json.NewDecoder(strings.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			continue // another JSON example
		}
		for k := range cfg {
			configKeys = append(configKeys, k)
		}
	}
	if len(configKeys) == 0 {
		t.Error("docs/ci.md shows no nogo_config.json")
	}

	dir := t.TempDir()
	var imports, list strings.Builder
	for i, p := range paths {
		fmt.Fprintf(&imports, "\tanalyzer%d %q\n", i+1, p)
		fmt.Fprintf(&list, "\tanalyzer%d.Analyzer,\n", i+1)
	}
	main := fmt.Sprintf(`package main

import (
%s	"fmt"
	"os"

	"golang.org/x/tools/go/analysis"
)

var analyzers = []*analysis.Analyzer{
%s}

var configKeys = %#v

func main() {
	if err := analysis.Validate(analyzers); err != nil {
		fmt.Println("invalid analyzers:", err)
		os.Exit(1)
	}
	names := map[string]bool{}
	for _, a := range analyzers {
		if names[a.Name] {
			fmt.Println("two analyzers named", a.Name)
			os.Exit(1)
		}
		names[a.Name] = true
	}
	for _, k := range configKeys {
		if !names[k] {
			fmt.Println("nogo_config.json names no analyzer:", k)
			os.Exit(1)
		}
	}
	fmt.Println("ok", len(analyzers))
}
`, imports.String(), list.String(), configKeys)
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", main)
	for i, b := range docBlocks(t, doc, "go") {
		if m := regexp.MustCompile(`(?m)^package (\w+)`).FindStringSubmatch(b); m != nil {
			write(filepath.Join("snippet"+fmt.Sprint(i), m[1]+".go"), b)
		}
	}
	write("go.mod", "module example.com/nogo\n\ngo 1.25\n\nrequire github.com/cancelcheck/cancelcheck v0.0.0\n\nreplace github.com/cancelcheck/cancelcheck => "+root+"\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("the nogo analyzer list from docs/ci.md does not build or validate: %v\n%s\n%s", err, out, main)
	}
	cmd = exec.Command("go", "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("docs/ci.md's Go snippets do not build: %v\n%s", err, out)
	}
}
