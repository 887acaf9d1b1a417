package driver

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// changedSet holds, per absolute file, the lines added or changed since a
// revision; a nil line map means the whole file is new. Negative keys are
// deletion points (deletedKey).
type changedSet map[string]map[int]bool

// deletedKey is the key, in a file's line map, under which a deletion
// point is recorded: -(c+1) for lines deleted after line c of the new file.
func deletedKey(c int) int { return -(c + 1) }

// changedLines runs git in dir to find the lines changed in the work tree
// (committed or not) since rev, plus untracked files.
func changedLines(dir, rev string) (changedSet, error) {
	root, err := gitOutput(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	root = strings.TrimSpace(root)
	if _, err := gitOutput(dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%q is not a git revision here", rev)
	}
	// Explicit prefixes and settings: the user's diff.noprefix,
	// diff.mnemonicPrefix (+++ w/file), diff.relative or color.diff must
	// not change what is parsed below.
	out, err := gitOutput(root, "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "diff.relative=false",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "-U0", rev, "--")
	if err != nil {
		return nil, err
	}
	set := make(changedSet)
	var cur map[int]bool
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "):
			name := strings.TrimPrefix(line, "+++ ")
			if name == "/dev/null" {
				cur = nil
				continue
			}
			name = strings.TrimPrefix(unquoteGit(name), "b/")
			cur = make(map[int]bool)
			set[canonical(filepath.Join(root, name))] = cur
		case strings.HasPrefix(line, "@@ ") && cur != nil:
			// @@ -a,b +c,d @@
			fields := strings.Fields(line)
			if len(fields) < 3 {
				continue
			}
			start, n := parseRange(strings.TrimPrefix(fields[2], "+"))
			if n == 0 {
				// Lines deleted after line start of the new file.
				cur[deletedKey(start)] = true
			}
			for l := start; l < start+n; l++ {
				cur[l] = true
			}
		}
	}
	untracked, err := gitOutput(root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(untracked, "\x00") {
		if name != "" {
			set[canonical(filepath.Join(root, name))] = nil
		}
	}
	return set, nil
}

func parseRange(s string) (start, n int) {
	a, b, ok := strings.Cut(s, ",")
	start, _ = strconv.Atoi(a)
	n = 1
	if ok {
		n, _ = strconv.Atoi(b)
	}
	return start, n
}

func unquoteGit(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

func canonical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// filter keeps the findings that touch changed lines: at their own
// position or at one of their related places, or a deletion between the
// first and last of those lines in the finding's file. A lease acquired on
// an old line but leaked by a newly added early return is new (the return
// is a related place), and so is one whose release was deleted between
// the acquisition and the leaking return.
func (cs changedSet) filter(findings []*Finding) []*Finding {
	var out []*Finding
	for _, f := range findings {
		if cs.touches(f.Pos) || slices.ContainsFunc(f.Related, func(r Related) bool { return cs.touches(r.Pos) }) || cs.deletedWithin(f) {
			out = append(out, f)
		}
	}
	return out
}

// deletedWithin reports whether lines were deleted inside the span of f's
// file that its position, end and related places cover.
func (cs changedSet) deletedWithin(f *Finding) bool {
	lines, ok := cs[canonical(f.Pos.File)]
	if !ok || lines == nil {
		return false
	}
	lo, hi := f.Pos.Line, max(f.Pos.Line, f.End.Line)
	for _, r := range f.Related {
		if r.Pos.File == f.Pos.File && r.Pos.Line > 0 {
			lo, hi = min(lo, r.Pos.Line), max(hi, r.Pos.Line)
		}
	}
	for c := lo; c < hi; c++ {
		if lines[deletedKey(c)] {
			return true
		}
	}
	return false
}

// touches reports whether p lies on a changed line.
func (cs changedSet) touches(p Position) bool {
	lines, ok := cs[canonical(p.File)]
	return ok && (lines == nil || lines[p.Line])
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
