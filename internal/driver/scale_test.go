package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigSource writes a 20,000-line Go file (with some multi-byte
// characters, so that column conversion does work) and returns its path
// and contents.
func bigSource(t *testing.T, lines int) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("package big\n\nfunc f() {\n")
	for i := 4; i <= lines; i++ {
		fmt.Fprintf(&b, "\tv%05d := Bad() // ünïcödé line %d\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "big.go")
	if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes()
}

// offsetOf returns the byte offset of line n, column col (1-based).
func offsetOf(src []byte, n, col int) int {
	off := 0
	for i := 1; i < n; i++ {
		off += bytes.IndexByte(src[off:], '\n') + 1
	}
	return off + col - 1
}

// renderTimed renders findings in format, failing the test if that takes
// more than limit (it gives up waiting after 10 times limit).
func renderTimed(t *testing.T, r *renderer, format string, findings []*Finding, limit time.Duration) string {
	t.Helper()
	var buf bytes.Buffer
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- renderers[format](r, &buf, findings) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("-format=%s: %v", format, err)
		}
	case <-time.After(10 * limit):
		t.Fatalf("-format=%s: still rendering after %v (limit %v)", format, 10*limit, limit)
	}
	if d := time.Since(start); d > limit {
		t.Errorf("-format=%s took %v, want under %v", format, d, limit)
	} else {
		t.Logf("-format=%s: %v, %d bytes", format, d, buf.Len())
	}
	return buf.String()
}

// TestRenderAtScale renders one finding with 2,500 related places, spread
// over a 20,000-line file, in every format: each must take well under a
// second, and the human-facing formats list only the first
// maxRelated places, then say how many more there are.
func TestRenderAtScale(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	const lines, nrel = 20000, 2500
	path, src := bigSource(t, lines)
	f := &Finding{
		Package: "example.com/big",
		Check:   "demo",
		Pos:     Position{path, lines - 5, 10},
		End:     Position{path, lines - 5, 15},
		Message: "the call to Bad returns 1, so f computes the wrong answer",
		Fixes: []Fix{{Message: "Call Good instead", Edits: []Edit{{
			File:  path,
			Start: offsetOf(src, lines-5, 10),
			End:   offsetOf(src, lines-5, 13),
			New:   "Good",
		}}}},
	}
	for i := range nrel {
		n := 4 + i*(lines-4)/nrel
		f.Related = append(f.Related, Related{
			Pos:     Position{path, n, 33},
			End:     Position{path, n, 37},
			Message: fmt.Sprintf("related place %d", i),
		})
	}
	more := fmt.Sprintf("... and %d more places", nrel-maxRelated)
	for _, format := range []string{"human", "text", "json", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			r := newRenderer(filepath.Dir(path), filepath.Dir(path), testChecks, false)
			out := renderTimed(t, r, format, []*Finding{f}, time.Second)
			switch format {
			case "json":
				// JSON keeps go/analysis's shape complete.
				var tree map[string]map[string][]jsonDiagnostic
				if err := json.Unmarshal([]byte(out), &tree); err != nil {
					t.Fatal(err)
				}
				if got := len(tree["example.com/big"]["demo"][0].Related); got != nrel {
					t.Errorf("JSON has %d related places, want all %d", got, nrel)
				}
			case "sarif":
				var log sarifLog
				if err := json.Unmarshal([]byte(out), &log); err != nil {
					t.Fatal(err)
				}
				res := log.Runs[0].Results[0]
				if len(res.RelatedLocations) != maxRelated || !strings.Contains(res.Message.Text, more) {
					t.Errorf("SARIF: %d related locations, message %q; want %d and %q", len(res.RelatedLocations), res.Message.Text, maxRelated, more)
				}
				// The last one listed: its column 33 in bytes is 29 in
				// code points (after "ünïcödé ").
				if reg := res.RelatedLocations[maxRelated-1].PhysicalLocation.Region; reg.StartLine != 4+(maxRelated-1)*(lines-4)/nrel || reg.StartColumn != 29 || reg.EndColumn != 33 {
					t.Errorf("SARIF: last related region %+v", reg)
				}
			default:
				if !strings.Contains(out, more) {
					t.Errorf("-format=%s does not say %q:\n%.2000s", format, more, out)
				}
				if n := strings.Count(out, "related place "); n != maxRelated {
					t.Errorf("-format=%s lists %d related places, want %d", format, n, maxRelated)
				}
			}
		})
	}
}

// TestRenderManyFindings renders 2,000 findings with fixes in one
// 20,000-line file in every format, each well under a second: lines,
// columns and fix previews must not rescan the file per finding.
func TestRenderManyFindings(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	const lines, n = 20000, 2000
	path, src := bigSource(t, lines)
	var findings []*Finding
	for i := range n {
		l := 4 + i*(lines-4)/n
		findings = append(findings, &Finding{
			Package: "example.com/big",
			Check:   "demo",
			Pos:     Position{path, l, 10},
			End:     Position{path, l, 15},
			Message: "the call to Bad returns 1, so f computes the wrong answer",
			Fixes: []Fix{{Message: "Call Good instead", Edits: []Edit{{
				File:  path,
				Start: offsetOf(src, l, 10),
				End:   offsetOf(src, l, 13),
				New:   "Good",
			}}}},
		})
	}
	for _, format := range []string{"human", "text", "json", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			r := newRenderer(filepath.Dir(path), filepath.Dir(path), testChecks, false)
			out := renderTimed(t, r, format, findings, time.Second)
			if format == "human" && strings.Count(out, "+    v") != n {
				t.Errorf("human: %d fix previews, want %d", strings.Count(out, "+    v"), n)
			}
		})
	}
}

// TestFixPreviewWindow checks that previews made from the lines around a
// fix's edits are those made from the whole file.
func TestFixPreviewWindow(t *testing.T) {
	src := "package p\n\nfunc f() {\n\ta()\n\tb()\n\tb()\n\tc()\n}\n\nfunc g() {}"
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	at := func(s string) int { return strings.Index(src, s) }
	// whole is fixPreview's result from the whole file.
	whole := func(edits []Edit) []string {
		fixed, err := applyEdits([]byte(src), edits)
		if err != nil {
			return nil
		}
		a, b := splitLines(src), splitLines(string(fixed))
		hunks := unifiedHunks(a, b, 0)
		for _, h := range hunks {
			if h.an == 0 {
				hunks = unifiedHunks(a, b, 1)
				break
			}
		}
		var out []string
		for _, h := range hunks {
			for _, l := range h.lines {
				out = append(out, strings.TrimSuffix(l, "\n"))
			}
		}
		return out
	}
	for _, edits := range [][]Edit{
		{{File: path, Start: at("a()"), End: at("a()") + 1, New: "z"}},
		{{File: path, Start: at("\tb()"), End: at("\tb()"), New: "\tx()\n"}}, // a pure insertion
		{{File: path, Start: at("\tb()"), End: at("\tc()"), New: ""}},        // deleting two lines
		{{File: path, Start: at("\tb()"), End: at("\tb()") + 5, New: ""}},    // deleting a line like the next
		{{File: path, Start: 0, End: 0, New: "// x\n"}},                      // at the start
		{{File: path, Start: len(src), End: len(src), New: "\n"}},            // at the end
		{{File: path, Start: at("a()"), End: at("a()") + 1, New: "z"}, {File: path, Start: at("g()"), End: at("g()") + 1, New: "h"}},
		{{File: path, Start: len(src) - 1, End: len(src) + 1, New: ""}}, // out of the file
	} {
		r := newRenderer(filepath.Dir(path), filepath.Dir(path), nil, false)
		got := r.fixPreview(Fix{Message: "m", Edits: edits})
		if want := whole(edits); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("edits %+v: preview\n%q\nwant\n%q", edits, got, want)
		}
	}
}
