// Package peers runs cancelcheck on the test suites of the linters whose
// ground it covers (lostcancel, waitgroup, bodyclose, sqlclosecheck,
// spancheck, contextcheck, noctx, gosec's G118 and nilerr) and scores it:
// how many of each peer's in-scope positives it finds with the check that
// owns the class, and how many findings it makes where the peer expects
// none. docs/peers.md says what is in scope for each peer and why, and
// explains every deliberate difference.
package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A peer is one linter's test suite.
type peer struct {
	name string
	// module@version on the module proxy, or "" for a pinned copy under
	// testdata/<pinned>.
	module, version string
	pinned          string
	// dir is the suite inside the module (or pinned copy): a GOPATH src
	// tree when gopath is set, else a module or package directory.
	dir    string
	gopath bool
	// pkgs are the patterns to analyze, relative to dir (default ./...).
	pkgs []string
	// owners are the checks that own the peer's class: only their findings
	// count as finding a positive.
	owners []string
	// site matches the peer's messages for an in-scope positive, ret its
	// messages that name a return reached without the release (counted
	// separately: found when a finding's related places name the line).
	site, ret *regexp.Regexp
	// ctxOnly keeps only positives in functions that have a caller's
	// context in reach (a context.Context or *http.Request parameter).
	ctxOnly bool
	// expect reads the positives from somewhere other than // want
	// comments (sqlclosecheck's expected_results.txt, gosec's samples).
	expect func(t *testing.T, root string) []want
	// prepare writes the suite into root when it is not a copy of dir
	// (gosec's samples are strings in a Go file).
	prepare func(t *testing.T, src, root string)
	// ahead are findings the peer does not expect that cancelcheck makes
	// deliberately, each with the reason (docs/peers.md).
	ahead []ahead
	// samples scores per sample (gosec): a positive sample with n issues
	// is n positives, each found by one distinct finding; a negative
	// sample is flagged by any finding.
	samples bool
}

// An ahead rule matches findings the peer does not expect that are right:
// check, a regexp on "file:line" (relative to the suite) and one on the
// message.
type ahead struct {
	check       string
	where, what string
	why         string
}

func (p *peer) isAhead(f finding) bool {
	for _, a := range p.ahead {
		if a.check == f.Check && regexp.MustCompile(a.where).MatchString(fmt.Sprintf("%s:%d", f.File, f.Line)) &&
			regexp.MustCompile(a.what).MatchString(f.Message) {
			return true
		}
	}
	return false
}

// A want is one expected diagnostic: file relative to the suite root.
type want struct {
	out     bool // outside our classes: only its line is known
	file    string
	line    int
	ret     bool // a return line, not an acquisition
	count   int  // samples: issues expected (0: a negative sample)
	message string
}

type finding struct {
	Check   string
	File    string
	Line    int
	Message string
	Related []int
}

var peerList = []peer{
	{
		name: "lostcancel", module: "golang.org/x/tools", version: "v0.52.0",
		dir: "go/analysis/passes/lostcancel/testdata/src", gopath: true,
		owners: []string{"leaseleak"},
		site:   regexp.MustCompile(`not used|discarded`),
		ret:    regexp.MustCompile(`reached without using`),
	},
	{
		name: "waitgroup", module: "golang.org/x/tools", version: "v0.52.0",
		dir: "go/analysis/passes/waitgroup/testdata/src", gopath: true,
		owners: []string{"untrackedgo"},
		site:   regexp.MustCompile(`WaitGroup\.Add`),
	},
	{
		name: "bodyclose", module: "github.com/timakin/bodyclose", version: "v0.0.0-20260723120731-857993a2939c",
		dir: "passes/bodyclose/testdata/src", gopath: true,
		owners: []string{"leaseleak"},
		site:   regexp.MustCompile(`^response body must be closed$`),
		ahead: []ahead{
			{"leaseleak", `handledresponse\.go|consumption\.go:209$`, `discarded`,
				"//bodyclose:handled is bodyclose's own directive on the callee; the caller still drops the response, and its body leaks"},
			{"detachedctx", `^consumption/`, `^http\.Get takes no context although r(eq)?\.Context\(\) is in reach`,
				"noctx's rule: http.Get where the request's context is in reach ignores its cancellation"},
		},
	},
	{
		name: "sqlclosecheck", module: "github.com/ryanrolds/sqlclosecheck", version: "v0.6.0",
		dir: ".", pkgs: []string{"./testdata/sqlx_examples", "./testdata/pgx_examples"},
		owners: []string{"leaseleak"},
		site:   regexp.MustCompile(`was not closed`),
		expect: expectedResults,
	},
	{
		name: "spancheck", pinned: "spancheck",
		dir: ".", pkgs: []string{"base", "enableall", "disableerrorchecks"},
		owners: []string{"leaseleak"},
		site:   regexp.MustCompile(`span\.End is not called|span is unassigned`),
		ret:    regexp.MustCompile(`without calling span\.End`),
	},
	{
		name: "contextcheck", module: "github.com/kkHAIKE/contextcheck", version: "v1.1.6",
		dir: "testdata/src", gopath: true,
		owners: []string{"detachedctx"},
		site:   regexp.MustCompile(`should pass the context parameter|Non-inherited new context`),
		ahead: []ahead{
			{"detachedctx", `^a/a\.go:115$`, `context\.Background\(\) in f14`,
				"f14 is a handler silenced by `// nolint: contextcheck`, a directive for that linter only; it does detach r.Context()"},
		},
	},
	{
		name: "noctx", module: "github.com/sonatard/noctx", version: "v0.5.1",
		dir: "testdata/src", gopath: true,
		owners:  []string{"detachedctx"},
		site:    regexp.MustCompile(`must not be called|should rewrite`),
		ctxOnly: true,
		ahead: []ahead{
			{"leaseleak", `.`, `(is|are) discarded`,
				"noctx's samples drop every result: a dropped response, connection, listener, transaction, statement or rows is a leak"},
			{"leaseleak", `^sql/sql\.go:66$`, `connection conn from \(\*sql\.DB\)\.Conn is not closed`,
				"db.Conn(ctx) is never closed: the connection is never returned to the pool"},
		},
	},
	{
		name: "nilerr", module: "github.com/gostaticanalysis/nilerr", version: "v0.1.2",
		dir: "testdata/src", gopath: true,
		owners:  []string{"swallowcancel"},
		site:    regexp.MustCompile(`error is not nil`),
		ctxOnly: true,
	},
	{
		name: "gosec G118", module: "github.com/securego/gosec/v2", version: "v2.29.0",
		dir: "testutils", gopath: true,
		owners:  []string{"leaseleak", "detachedctx", "retrycancel", "untrackedgo", "swallowcancel", "orphansend", "foldedtimeout"},
		prepare: gosecSamples,
		expect:  gosecExpect,
		samples: true,
		ahead: []ahead{
			{"detachedctx", `^g118/s0(23|33)/`, `takes no context although ctx is in reach`,
				"noctx's rule: a context-less HTTP call where the caller's context is in reach (G118 counts only goroutines and loops)"},
			{"leaseleak", `^g118/s033/`, `response body from \(\*http\.Client\)\.Do is discarded`,
				"client.Do(req) as a statement drops the response, and its body leaks"},
		},
	},
}

func TestPeers(t *testing.T) {
	if os.Getenv("CANCELCHECK_PEERS") == "" {
		t.Skip("set CANCELCHECK_PEERS=1 to run the peers' suites (module proxy)")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "cancelcheck")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cancelcheck")
	build.Dir = moduleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var report bytes.Buffer
	fmt.Fprintf(&report, "%-14s %-9s %-9s %s\n", "peer", "found", "returns", "flagged")
	scores := map[string]string{}
	for _, p := range peerList {
		s := runPeer(t, p, bin, filepath.Join(tmp, strings.ReplaceAll(p.name, " ", "_")))
		fmt.Fprintf(&report, "%-14s %-9s %-9s %d\n", p.name, s.found, s.returns, s.flagged)
		for _, m := range s.missed {
			fmt.Fprintf(&report, "    missed  %s\n", m)
		}
		for _, f := range s.wrong {
			fmt.Fprintf(&report, "    flagged %s\n", f)
		}
		scores[p.name] = fmt.Sprintf("found %s returns %s flagged %d", s.found, s.returns, s.flagged)
	}
	fmt.Print(report.String())
	if out := os.Getenv("CANCELCHECK_PEERS_OUT"); out != "" {
		if err := os.WriteFile(out, report.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compareScores(t, scores)
}

type score struct {
	found, returns string
	flagged        int
	missed, wrong  []string
}

func runPeer(t *testing.T, p peer, bin, root string) score {
	t.Helper()
	var src string
	if p.pinned != "" {
		abs, err := filepath.Abs(filepath.Join("testdata", p.pinned))
		if err != nil {
			t.Fatal(err)
		}
		src = abs
	} else {
		src = moduleDir(t, p.module, p.version)
	}
	suite := filepath.Join(src, p.dir)
	work := root
	if p.gopath {
		work = filepath.Join(root, "src")
	}
	if p.prepare != nil {
		p.prepare(t, suite, work)
	} else {
		copyTree(t, suite, work)
	}
	pkgs := p.pkgs
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	var findings []finding
	for _, pkg := range pkgs {
		dir, pattern := work, pkg
		if _, err := os.Stat(filepath.Join(work, pkg, "go.mod")); err == nil {
			dir, pattern = filepath.Join(work, pkg), "./..."
		}
		findings = append(findings, analyze(t, p, bin, root, dir, pattern)...)
	}
	var wants []want
	if p.expect != nil {
		wants = p.expect(t, work)
	} else {
		wants = wantComments(t, p, work)
	}
	if p.samples {
		return scoreSamples(p, wants, findings)
	}
	return scoreWants(p, wants, findings)
}

func analyze(t *testing.T, p peer, bin, root, dir, pattern string) []finding {
	t.Helper()
	cmd := exec.Command(bin, "-json", pattern)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if p.gopath {
		cmd.Env = append(cmd.Env, "GO111MODULE=off", "GOPATH="+root)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("%s: cancelcheck %s in %s: %v\n%s", p.name, pattern, dir, err, stderr.String())
	}
	base := root
	if p.gopath {
		base = filepath.Join(root, "src")
	}
	var out []finding
	dec := json.NewDecoder(&stdout)
	for {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			break
		}
		for _, units := range tree {
			for check, raw := range units {
				var diags []struct {
					Posn    string `json:"posn"`
					Message string `json:"message"`
					Related []struct {
						Posn string `json:"posn"`
					} `json:"related"`
				}
				if json.Unmarshal(raw, &diags) != nil {
					t.Errorf("%s: %s: %s", p.name, check, raw)
					continue
				}
				for _, d := range diags {
					file, line := posn(d.Posn)
					rel, _ := filepath.Rel(base, file)
					f := finding{Check: check, File: filepath.ToSlash(rel), Line: line, Message: d.Message}
					for _, r := range d.Related {
						if rf, rl := posn(r.Posn); rf == file {
							f.Related = append(f.Related, rl)
						}
					}
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func posn(s string) (string, int) {
	parts := strings.Split(s, ":")
	if len(parts) < 3 {
		return s, 0
	}
	line, _ := strconv.Atoi(parts[len(parts)-2])
	return strings.Join(parts[:len(parts)-2], ":"), line
}

func scoreWants(p peer, wants []want, findings []finding) score {
	var s score
	owned := func(f finding) bool { return slices.Contains(p.owners, f.Check) }
	matched := map[int]bool{}
	var sites, sitesFound, rets, retsFound int
	for _, w := range wants {
		if w.out {
			continue
		}
		found := false
		for i, f := range findings {
			if !owned(f) || f.File != w.file {
				continue
			}
			// A positive is found at its line, or by a finding whose
			// related places name it (ctx = context.Background() reported
			// at the assignment, with the use the peer reports at).
			if (!w.ret && f.Line == w.line) || slices.Contains(f.Related, w.line) {
				found = true
				matched[i] = true
			}
		}
		if w.ret {
			rets++
			if found {
				retsFound++
			}
			continue
		}
		sites++
		if found {
			sitesFound++
		} else {
			s.missed = append(s.missed, fmt.Sprintf("%s:%d %s", w.file, w.line, w.message))
		}
	}
	// A finding elsewhere on a line the peer expects something of is not
	// a false positive of ours on a negative.
	wantLines := map[string]bool{}
	for _, w := range wants {
		wantLines[fmt.Sprintf("%s:%d", w.file, w.line)] = true
	}
	for i, f := range findings {
		if matched[i] || wantLines[fmt.Sprintf("%s:%d", f.File, f.Line)] {
			continue
		}
		if p.isAhead(f) {
			continue
		}
		s.flagged++
		s.wrong = append(s.wrong, fmt.Sprintf("%s:%d %s: %s", f.File, f.Line, f.Check, f.Message))
	}
	s.found = fmt.Sprintf("%d/%d", sitesFound, sites)
	s.returns = "-"
	if rets > 0 {
		s.returns = fmt.Sprintf("%d/%d", retsFound, rets)
	}
	return s
}

func scoreSamples(p peer, wants []want, findings []finding) score {
	var s score
	perDir := map[string][]finding{}
	for _, f := range findings {
		if slices.Contains(p.owners, f.Check) {
			perDir[filepath.Dir(f.File)] = append(perDir[filepath.Dir(f.File)], f)
		}
	}
	var issues, found int
	for _, w := range wants {
		got := perDir[w.file]
		if w.count == 0 {
			for _, f := range got {
				if p.isAhead(f) {
					continue
				}
				s.flagged++
				s.wrong = append(s.wrong, fmt.Sprintf("%s:%d %s: %s", f.File, f.Line, f.Check, f.Message))
			}
			continue
		}
		issues += w.count
		n := min(len(got), w.count)
		found += n
		if n < w.count {
			s.missed = append(s.missed, fmt.Sprintf("%s: %d of %d (%s)", w.file, n, w.count, w.message))
		}
	}
	s.found = fmt.Sprintf("%d/%d", found, issues)
	s.returns = "-"
	return s
}

// wantComments reads analysistest's // want comments of the suite.
func wantComments(t *testing.T, p peer, root string) []want {
	t.Helper()
	var out []want
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil // a suite may hold files that do not parse on purpose
		}
		rel, _ := filepath.Rel(root, path)
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text, ok := strings.CutPrefix(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*"), " want ")
				if !ok {
					continue
				}
				line := fset.Position(c.Pos()).Line
				for _, msg := range wantMessages(strings.TrimSuffix(text, "*/")) {
					w := want{file: filepath.ToSlash(rel), line: line, message: msg}
					switch {
					case p.ret != nil && p.ret.MatchString(msg):
						w.ret = true
					case p.site.MatchString(msg):
					default:
						w.out = true
					}
					if p.ctxOnly && !ctxInReach(f, fset, line) {
						w.out = true
					}
					out = append(out, w)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantMessages splits the expectations of one want comment: string
// literals, skipping facts (name:"...").
func wantMessages(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		fact := false
		if i := strings.IndexAny(s, "\"`"); i > 0 && strings.HasSuffix(strings.TrimSpace(s[:i]), ":") {
			fact, s = true, s[i:]
		}
		var lit string
		switch s[0] {
		case '`':
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				return out
			}
			lit, s = s[:end+2], s[end+2:]
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return out
			}
			lit, s = s[:end+1], s[end+1:]
		default:
			return out
		}
		msg, err := strconv.Unquote(lit)
		if err == nil && !fact {
			out = append(out, msg)
		}
	}
	return out
}

// ctxInReach reports whether the function around line has a parameter of
// type context.Context or *http.Request (spelled so in the suite).
func ctxInReach(f *ast.File, fset *token.FileSet, line int) bool {
	in := false
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft = n.Type
		case *ast.FuncLit:
			ft = n.Type
		default:
			return true
		}
		if fset.Position(n.Pos()).Line > line || fset.Position(n.End()).Line < line {
			return false
		}
		for _, fld := range ft.Params.List {
			switch types.ExprString(fld.Type) {
			case "context.Context", "*http.Request":
				in = true
			}
		}
		return true
	})
	return in
}

// expectedResults reads sqlclosecheck's expected_results.txt files.
func expectedResults(t *testing.T, root string) []want {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "*", "expected_results.txt"))
	var out []want
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), ":", 4)
			if len(parts) < 4 || strings.HasPrefix(parts[0], "#") {
				continue
			}
			line, _ := strconv.Atoi(parts[1])
			msg := strings.TrimSpace(parts[3])
			out = append(out, want{file: parts[0], line: line, message: msg, out: !regexp.MustCompile(`was not closed`).MatchString(msg)})
		}
	}
	return out
}

// gosecSamples writes each of gosec's G118 samples as a package
// g118/sNNN of a GOPATH tree.
func gosecSamples(t *testing.T, src, root string) {
	t.Helper()
	for i, s := range g118(t, src) {
		dir := filepath.Join(root, "g118", fmt.Sprintf("s%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j, code := range s.files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", j)), []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func gosecExpect(t *testing.T, root string) []want {
	t.Helper()
	src := filepath.Join(moduleDir(t, "github.com/securego/gosec/v2", "v2.29.0"), "testutils")
	var out []want
	for i, s := range g118(t, src) {
		out = append(out, want{file: fmt.Sprintf("g118/s%03d", i), count: s.count, message: s.comment})
	}
	return out
}

type sample struct {
	files   []string
	count   int
	comment string
}

// g118 parses testutils/g118_samples.go: a slice of CodeSample{[]string{
// code...}, issues, config}.
func g118(t *testing.T, src string) []sample {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(src, "g118_samples.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	cmap := ast.NewCommentMap(fset, f, f.Comments)
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || types.ExprString(lit.Type) != "[]CodeSample" {
			return true
		}
		for _, e := range lit.Elts {
			cs, ok := e.(*ast.CompositeLit)
			if !ok || len(cs.Elts) < 2 {
				continue
			}
			var s sample
			if codes, ok := cs.Elts[0].(*ast.CompositeLit); ok {
				for _, c := range codes.Elts {
					if bl, ok := c.(*ast.BasicLit); ok {
						code, _ := strconv.Unquote(bl.Value)
						s.files = append(s.files, code)
					}
				}
			}
			if bl, ok := cs.Elts[1].(*ast.BasicLit); ok {
				s.count, _ = strconv.Atoi(bl.Value)
			}
			for _, cg := range cmap[e] {
				s.comment = strings.TrimSpace(strings.TrimPrefix(cg.List[0].Text, "//"))
			}
			out = append(out, s)
		}
		return false
	})
	return out
}

// compareScores checks the scores against testdata/scores.txt: a found
// count may not fall and a flagged count may not rise.
// CANCELCHECK_PEERS_UPDATE=1 rewrites the file.
func compareScores(t *testing.T, scores map[string]string) {
	t.Helper()
	const file = "testdata/scores.txt"
	if os.Getenv("CANCELCHECK_PEERS_UPDATE") != "" {
		var b strings.Builder
		b.WriteString("# peer: found (in-scope positives) returns (named return lines) flagged (findings on negatives)\n")
		names := make([]string, 0, len(scores))
		for n := range scores {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "%s: %s\n", n, scores[n])
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (CANCELCHECK_PEERS_UPDATE=1 writes it)", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, rec, ok := strings.Cut(line, ": ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		got, ok := scores[name]
		if !ok {
			t.Errorf("%s: not run", name)
			continue
		}
		rf, rr, rg := parseScore(rec)
		gf, gr, gg := parseScore(got)
		if gf < rf || gr < rr || gg > rg {
			t.Errorf("%s: %s, recorded %s", name, got, rec)
		}
	}
}

func parseScore(s string) (found, returns, flagged int) {
	f := strings.Fields(s)
	num := func(v string) int {
		n, _ := strconv.Atoi(strings.Split(v, "/")[0])
		return n
	}
	if len(f) >= 6 {
		return num(f[1]), num(f[3]), num(f[5])
	}
	return 0, 0, 0
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// moduleDir downloads module@version from the module proxy and returns its
// directory in the module cache.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	if err != nil {
		t.Fatalf("go mod download %s@%s: %v", module, version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v %s", module, version, err, m.Error)
	}
	return m.Dir
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
