package driver

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// applyEdits applies non-overlapping edits to src. Identical edits count
// once (two fixes adding the same import).
func applyEdits(src []byte, edits []Edit) ([]byte, error) {
	edits = dedupEdits(edits)
	var buf bytes.Buffer
	last := 0
	for _, e := range edits {
		if e.Start < last || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("%s: overlapping or invalid edits", e.File)
		}
		buf.Write(src[last:e.Start])
		buf.WriteString(e.New)
		last = e.End
	}
	buf.Write(src[last:])
	return buf.Bytes(), nil
}

func dedupEdits(edits []Edit) []Edit {
	edits = append([]Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].Start != edits[j].Start {
			return edits[i].Start < edits[j].Start
		}
		return edits[i].End < edits[j].End
	})
	out := edits[:0]
	for i, e := range edits {
		if i > 0 && e == edits[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// overlaps reports whether e conflicts with any of accepted (identical
// edits do not conflict).
func overlaps(e Edit, accepted []Edit) bool {
	for _, a := range accepted {
		if a == e || a.File != e.File {
			continue
		}
		if e.Start < a.End && a.Start < e.End {
			return true
		}
		// Two insertions at one point conflict unless identical.
		if e.Start == e.End && a.Start == a.End && e.Start == a.Start {
			return true
		}
	}
	return false
}

// applyFixes applies the first fix of each finding, skipping a fix that
// conflicts with one already taken, and gofmts the result. With diff it
// prints a unified diff instead of writing. It returns ExitFindings if
// findings remain unfixed or (with diff) the diff is not empty.
func (c *command) applyFixes(wd string, findings []*Finding, diff bool) (int, error) {
	// Like go vet -fix, never rewrite the standard library or the module
	// cache (dependencies).
	var readOnly []string
	if out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output(); err == nil {
		for _, dir := range strings.Fields(string(out)) {
			readOnly = append(readOnly, filepath.Clean(dir)+string(filepath.Separator))
		}
	}
	fixable := func(fx Fix) bool {
		for _, e := range fx.Edits {
			for _, dir := range readOnly {
				if strings.HasPrefix(e.File, dir) {
					return false
				}
			}
		}
		return true
	}
	perFile := make(map[string][]Edit)
	var unfixed []*Finding
	for _, f := range findings {
		if len(f.Fixes) == 0 || !fixable(f.Fixes[0]) {
			unfixed = append(unfixed, f)
			continue
		}
		fx := f.Fixes[0]
		ok := true
		for _, e := range fx.Edits {
			if overlaps(e, perFile[e.File]) {
				ok = false
				break
			}
		}
		if !ok {
			unfixed = append(unfixed, f)
			continue
		}
		for _, e := range fx.Edits {
			perFile[e.File] = append(perFile[e.File], e)
		}
	}
	var files []string
	for f := range perFile {
		files = append(files, f)
	}
	sort.Strings(files)
	changed := false
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return ExitError, err
		}
		fixed, err := applyEdits(src, perFile[file])
		if err != nil {
			return ExitError, err
		}
		fixed = dropUnusedImports(src, fixed)
		if formatted, err := format.Source(fixed); err == nil {
			fixed = formatted
		}
		if bytes.Equal(src, fixed) {
			continue
		}
		changed = true
		if diff {
			rel := relPath(wd, file)
			fmt.Fprint(c.stdout, unifiedDiff("a/"+rel, "b/"+rel, string(src), string(fixed)))
			continue
		}
		st, err := os.Stat(file)
		if err != nil {
			return ExitError, err
		}
		if err := os.WriteFile(file, fixed, st.Mode().Perm()); err != nil {
			return ExitError, err
		}
	}
	r := &renderer{wd: wd, files: make(map[string][]byte)}
	if len(unfixed) > 0 {
		fmt.Fprintf(c.stderr, "cancelcheck: %d findings have no fix that could be applied:\n", len(unfixed))
		r.text(c.stderr, unfixed)
		return ExitFindings, nil
	}
	if diff && changed {
		return ExitFindings, nil
	}
	return ExitClean, nil
}

// splitLines splits s into lines, each keeping its "\n".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// A hunk is one @@ section of a unified diff.
type hunk struct {
	a0, an, b0, bn int      // 1-based start and length in a and b
	lines          []string // " x", "-x", "+x"
}

// unifiedDiff returns the unified diff from a to b, "" if they are equal.
func unifiedDiff(nameA, nameB, a, b string) string {
	hunks := unifiedHunks(splitLines(a), splitLines(b), 3)
	if len(hunks) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	for _, h := range hunks {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(h.a0, h.an), hunkRange(h.b0, h.bn))
		for _, l := range h.lines {
			sb.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	if n == 0 {
		start-- // an empty range names the line before it
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	text string
}

// unifiedHunks groups the edit script from a to b into hunks with ctx
// lines of context.
func unifiedHunks(a, b []string, ctx int) []hunk {
	ops := lineDiff(a, b)
	var hunks []hunk
	ai, bi := 1, 1 // line numbers of the next op
	i := 0
	for i < len(ops) {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
			ai++
			bi++
		}
		if i == len(ops) {
			break
		}
		// Start a hunk ctx lines before it.
		start := max(i-ctx, 0)
		h := hunk{a0: ai - (i - start), b0: bi - (i - start)}
		for k := start; k < i; k++ {
			h.lines = append(h.lines, " "+ops[k].text)
		}
		h.an, h.bn = i-start, i-start
		// Extend while changes are within 2*ctx lines of each other.
		for i < len(ops) {
			if ops[i].kind == ' ' {
				j := i
				for j < len(ops) && ops[j].kind == ' ' {
					j++
				}
				if j == len(ops) || j-i > 2*ctx {
					n := min(ctx, j-i)
					for k := i; k < i+n; k++ {
						h.lines = append(h.lines, " "+ops[k].text)
					}
					h.an += n
					h.bn += n
					break
				}
				for k := i; k < j; k++ {
					h.lines = append(h.lines, " "+ops[k].text)
				}
				h.an += j - i
				h.bn += j - i
				ai += j - i
				bi += j - i
				i = j
				continue
			}
			h.lines = append(h.lines, string(ops[i].kind)+ops[i].text)
			if ops[i].kind == '-' {
				h.an++
				ai++
			} else {
				h.bn++
				bi++
			}
			i++
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// lineDiff returns a shortest edit script from a to b (Myers' algorithm).
func lineDiff(a, b []string) []op {
	// Trim the common prefix and suffix: fixes are local.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for _, l := range a[:p] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, myers(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

func myers(a, b []string) []op {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	maxD := n + m
	off := maxD
	v := make([]int, 2*maxD+2)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, off, d)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, a, b []string, off, d int) []op {
	var rev []op
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, op{' ', a[x-1]})
			x--
			y--
		}
		if x == prevX {
			rev = append(rev, op{'+', b[y-1]})
			y--
		} else {
			rev = append(rev, op{'-', a[x-1]})
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, op{' ', a[x-1]})
		x--
		y--
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}
