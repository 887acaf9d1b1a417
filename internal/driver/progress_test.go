package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/internal/directive"
)

// runTerm runs the standalone command in dir as if stderr were a
// terminal (or not), redrawing progress on every change.
func runTerm(t *testing.T, dir string, term bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	c := &command{
		checks:        directive.WithSuite(testChecks),
		stdout:        &o,
		stderr:        &e,
		wd:            dir,
		terminal:      func(w io.Writer) bool { return term && w == &e },
		progressEvery: time.Nanosecond,
	}
	code = c.run(args)
	return o.String(), e.String(), code
}

var progressLine = regexp.MustCompile(`\rcancelcheck: (\d+)(?:/(\d+))? packages *`)

// progressStates returns the done and total counts of the progress lines
// in stderr (total -1 while unknown), checking that the last thing
// progress wrote erases the line.
func progressStates(t *testing.T, stderr string) (done, total []int) {
	t.Helper()
	for _, m := range progressLine.FindAllStringSubmatch(stderr, -1) {
		d, _ := strconv.Atoi(m[1])
		n := -1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		done, total = append(done, d), append(total, n)
	}
	if len(done) > 0 {
		last := strings.LastIndex(stderr, "\r")
		if i := strings.LastIndex(stderr[:last], "\r"); !regexp.MustCompile(`^\r +$`).MatchString(stderr[i:last]) {
			t.Errorf("progress does not end by erasing its line:\n%q", stderr)
		}
	}
	return done, total
}

func TestProgress(t *testing.T) {
	dir := fixture(t)
	_, stderr, code := runTerm(t, dir, true, "-format=text", "./a", "./clean", "./boom")
	if code != ExitError { // boom panics
		t.Errorf("exit %d, want %d:\n%s", code, ExitError, stderr)
	}
	done, total := progressStates(t, stderr)
	if len(done) == 0 {
		t.Fatalf("no progress on a terminal:\n%q", stderr)
	}
	if d := done[len(done)-1]; d != 3 {
		t.Errorf("progress ended at %d packages, want 3 (./a with its tests, ./clean, ./boom):\n%q", d, stderr)
	}
	for _, n := range total {
		if n != -1 && n != 3 {
			t.Errorf("progress total %d, want 3:\n%q", n, stderr)
		}
	}
	// Progress leaves the line clean for what follows.
	if !regexp.MustCompile(`\r +\r[^\r]*boom/boom.go:2:1: internal error`).MatchString(stderr) {
		t.Errorf("the panic report does not start on an erased line:\n%q", stderr)
	}

	// A package that does not type-check counts when its errors are
	// printed.
	_, stderr, code = runTerm(t, dir, true, "-format=text", "./broken", "./clean")
	if code != ExitLoad {
		t.Errorf("exit %d, want %d:\n%s", code, ExitLoad, stderr)
	}
	if done, _ := progressStates(t, stderr); len(done) == 0 || done[len(done)-1] != 2 {
		t.Errorf("progress with a broken package: %v, want to end at 2:\n%q", done, stderr)
	}

	for _, tc := range []struct {
		term bool
		args []string
	}{
		{false, []string{"./a"}},
		{true, []string{"-quiet", "./a"}},
	} {
		_, stderr, _ := runTerm(t, dir, tc.term, append([]string{"-format=text"}, tc.args...)...)
		if strings.Contains(stderr, "\r") {
			t.Errorf("terminal %v, %v: progress shown:\n%q", tc.term, tc.args, stderr)
		}
	}
}

func TestProgressDraw(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, time.Second)
	now := time.Unix(0, 0)
	p.now = func() time.Time { return now }

	// Before start, and after finish, nothing is counted or drawn.
	p.add(1)
	total := make(chan int)
	p.start(func(ctx context.Context) (int, bool) { return <-total, true })
	p.add(1) // drawn: the first
	now = now.Add(time.Millisecond)
	p.add(1) // too soon
	now = now.Add(time.Second)
	p.add(1) // drawn
	total <- 120
	for !strings.Contains(out.String(), "/120") {
		time.Sleep(time.Millisecond)
	}
	p.add(7) // too soon after the total, which is drawn at once
	p.finish()
	p.add(1)
	p.setTotal(5)
	want := "\rcancelcheck: 1 packages" +
		"\rcancelcheck: 3 packages" +
		"\rcancelcheck: 3/120 packages" +
		"\r                           \r"
	if out.String() != want {
		t.Errorf("progress wrote\n%q\nwant\n%q", out.String(), want)
	}

	// A shorter line is padded over the longer one before it; done never
	// exceeds the total.
	out.Reset()
	p = newProgress(&out, time.Nanosecond)
	p.start(nil)
	p.add(1234)
	p.setTotal(9)
	p.finish()
	want = "\rcancelcheck: 1234 packages" +
		"\rcancelcheck: 9/9 packages " +
		"\r" + strings.Repeat(" ", len("cancelcheck: 1234 packages")) + "\r"
	if out.String() != want {
		t.Errorf("progress wrote\n%q\nwant\n%q", out.String(), want)
	}

	// finish stops the computation of the total.
	out.Reset()
	p = newProgress(&out, time.Nanosecond)
	p.start(func(ctx context.Context) (int, bool) { <-ctx.Done(); return 0, false })
	p.finish()
	if out.Len() != 0 {
		t.Errorf("nothing counted, yet progress wrote %q", out.String())
	}
}

// TestValueCounter feeds go vet -json's stream in small pieces, with
// braces inside strings, to the counter of finished units.
func TestValueCounter(t *testing.T) {
	tree := map[string]map[string][]jsonDiagnostic{
		"example.com/a": {"demo": {{Posn: "a.go:1:2", Message: `a "quoted} {brace\" and \\ backslash ]`}}},
	}
	data, _ := json.MarshalIndent(tree, "", "\t")
	stream := "{}\n" + string(data) + "\n{}\n" + `{"x":{"y":{"error":"}}}"}}}` + "\n"
	for _, size := range []int{1, 2, 7, len(stream)} {
		n := 0
		c := &valueCounter{add: func(k int) { n += k }}
		for s := stream; s != ""; {
			k := min(size, len(s))
			c.Write([]byte(s[:k]))
			s = s[k:]
		}
		if n != 4 {
			t.Errorf("writes of %d bytes: counted %d values, want 4", size, n)
		}
	}
}

func TestHeaderCounter(t *testing.T) {
	stderr := "# example.com/m/b\n" +
		"b/b.go:1:34: cannot use \"x\" as int value\n" +
		"# example.com/m/q\n" +
		"# [example.com/m/q]\n" +
		"q/q_test.go:1:34: undefined: x # not a header\n" +
		"#notaheader\n" +
		"go: downloading example.com/x v1.0.0\n" +
		"# example.com/m/r\n"
	for _, size := range []int{1, 3, len(stderr)} {
		n := 0
		c := &headerCounter{add: func(k int) { n += k }}
		for s := stderr; s != ""; {
			k := min(size, len(s))
			c.Write([]byte(s[:k]))
			s = s[k:]
		}
		if n != 3 {
			t.Errorf("writes of %d bytes: counted %d failed units, want 3", size, n)
		}
	}
}

// TestUnitCount checks the total against go vet's units: a package's
// files with its in-package tests, its external tests, and what the vet
// tool skips when tests are not analyzed.
func TestUnitCount(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.26\n",
		"p/p.go":                   "package p\n\nfunc F() int { return 1 }\n",
		"p/p_test.go":              "package p\n",
		"p/x_test.go":              "package p_test\n",
		"r/r_test.go":              "package r_test\n",                // external tests only
		"s/s_test.go":              "package s\n",                     // in-package tests only
		"t/t.go":                   "package t\n",                     // no tests
		"u/u.go":                   "//go:build never\n\npackage u\n", // no files to vet
		"notests/.cancelcheck.yml": "tests: false\n",
		"notests/n.go":             "package notests\n",
		"notests/x_test.go":        "package notests_test\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o777)
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	yes, no := true, false
	for _, tc := range []struct {
		tests *bool
		want  int
	}{
		{nil, 6},  // p, p_test, r_test, s, t, notests (its config drops tests)
		{&yes, 7}, // and notests_test
		{&no, 3},  // p, t, notests
	} {
		u := &unitCounter{wd: dir, checks: testChecks, tests: tc.tests}
		n, ok := u.count(context.Background(), []string{"./..."})
		if !ok || n != tc.want {
			t.Errorf("tests %v: %d units (ok %v), want %d", tc.tests, n, ok, tc.want)
		}
	}
}
