package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

// A renderer holds what the output formats need besides the findings.
type renderer struct {
	wd     string // paths are shown relative to it
	root   string // SARIF and GitHub paths are relative to it (the repository root)
	checks []analyzers.Check
	color  bool
	files  map[string][]byte // source cache
}

var renderers = map[string]func(*renderer, io.Writer, []*Finding) error{
	"human":  (*renderer).human,
	"text":   (*renderer).text,
	"json":   (*renderer).json,
	"sarif":  (*renderer).sarif,
	"github": (*renderer).github,
}

// useColor decides on colour: mode always or never, or auto: a terminal,
// NO_COLOR unset or empty, TERM not dumb.
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// relPath returns file relative to dir when it lies below dir.
func relPath(dir, file string) string {
	if dir == "" {
		return file
	}
	if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return file
}

// repoRoot returns the git work tree containing dir, or dir.
func repoRoot(dir string) string {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return dir
	}
	return strings.TrimSpace(string(out))
}

func (r *renderer) source(file string) []byte {
	if data, ok := r.files[file]; ok {
		return data
	}
	data, _ := os.ReadFile(file)
	r.files[file] = data
	return data
}

// line returns the text of line n (1-based) of file.
func (r *renderer) line(file string, n int) (string, bool) {
	data := r.source(file)
	for i := 1; len(data) > 0; i++ {
		l, rest, _ := strings.Cut(string(data), "\n")
		if i == n {
			return strings.TrimSuffix(l, "\r"), true
		}
		data = []byte(rest)
	}
	return "", false
}

func (r *renderer) posString(p Position) string {
	return fmt.Sprintf("%s:%d:%d", relPath(r.wd, p.File), p.Line, p.Col)
}

// directiveWhy explains findings about suppression directives.
const directiveWhy = "a //cancelcheck:ignore directive must name a check, give a reason and silence a finding, or it hides nothing and misleads (docs/suppression.md)"

// text prints file:line:col: message [check], one finding a line.
func (r *renderer) text(w io.Writer, findings []*Finding) error {
	for _, f := range findings {
		if _, err := fmt.Fprintf(w, "%s: %s [%s]\n", r.posString(f.Pos), f.Message, f.Check); err != nil {
			return err
		}
		for _, rel := range f.Related {
			fmt.Fprintf(w, "\t%s: %s\n", r.posString(rel.Pos), rel.Message)
		}
	}
	return nil
}

// json prints the go/analysis JSON tree: package ID -> check -> diagnostics.
func (r *renderer) json(w io.Writer, findings []*Finding) error {
	data, err := json.MarshalIndent(jsonTree(findings), "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// github prints GitHub Actions workflow commands, which annotate the
// pull request's diff.
func (r *renderer) github(w io.Writer, findings []*Finding) error {
	for _, f := range findings {
		file := filepath.ToSlash(relPath(r.root, f.Pos.File))
		props := fmt.Sprintf("file=%s,line=%d,col=%d", ghProp(file), f.Pos.Line, f.Pos.Col)
		if f.End.Line > 0 && f.End.File == f.Pos.File {
			props += fmt.Sprintf(",endLine=%d", f.End.Line)
			if f.End.Line == f.Pos.Line {
				props += fmt.Sprintf(",endColumn=%d", f.End.Col)
			}
		}
		props += ",title=" + ghProp("cancelcheck "+f.Check)
		if _, err := fmt.Fprintf(w, "::warning %s::%s\n", props, ghData(f.Message)); err != nil {
			return err
		}
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		return appendStepSummary(path, findings)
	}
	return nil
}

// appendStepSummary adds a table of findings per check to the job's
// summary page, when running in GitHub Actions.
func appendStepSummary(path string, findings []*Finding) error {
	counts := make(map[string]int)
	for _, f := range findings {
		counts[f.Check]++
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("### cancelcheck\n\n")
	if len(findings) == 0 {
		b.WriteString("No findings.\n")
	} else {
		b.WriteString("| Check | Findings |\n|---|---|\n")
		for _, n := range names {
			fmt.Fprintf(&b, "| [%s](https://github.com/cancelcheck/cancelcheck/blob/main/docs/%s.md) | %d |\n", n, n, counts[n])
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// human prints each finding with its source line, a caret, the check's
// one-line why and its fix as a small diff, then a count per check.
func (r *renderer) human(w io.Writer, findings []*Finding) error {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if r.color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	var (
		bold  = mk(color.Bold)
		warn  = mk(color.FgYellow, color.Bold)
		faint = mk(color.Faint)
		caret = mk(color.FgGreen, color.Bold)
		del   = mk(color.FgRed)
		add   = mk(color.FgGreen)
		name  = mk(color.FgCyan)
	)
	counts := make(map[string]int)
	for i, f := range findings {
		counts[f.Check]++
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s %s\n", bold.Sprint(r.posString(f.Pos)+":"), f.Message, name.Sprint("["+f.Check+"]"))
		if src, ok := r.line(f.Pos.File, f.Pos.Line); ok {
			num := fmt.Sprintf("%5d | ", f.Pos.Line)
			fmt.Fprintf(w, "%s%s\n", faint.Sprint(num), expandTabs(src))
			width := 1
			if f.End.Line == f.Pos.Line && f.End.Col > f.Pos.Col {
				width = f.End.Col - f.Pos.Col
			}
			pad := displayWidth(src, f.Pos.Col-1)
			span := max(1, displayWidth(src, f.Pos.Col-1+width)-pad)
			fmt.Fprintf(w, "%s%s%s\n", faint.Sprint("      | "), strings.Repeat(" ", pad), caret.Sprint("^"+strings.Repeat("~", span-1)))
		}
		for _, rel := range f.Related {
			fmt.Fprintf(w, "  %s %s\n", faint.Sprint(r.posString(rel.Pos)+":"), rel.Message)
		}
		if f.Category == "directive" {
			fmt.Fprintf(w, "  %s %s\n", warn.Sprint("why:"), directiveWhy)
		} else if chk, ok := checkInfo(r.checks, f.Check); ok {
			if why := chk.Summary(); why != "" {
				more := ""
				if chk.Analyzer.URL != "" {
					more = " (cancelcheck -explain " + f.Check + ")"
				}
				fmt.Fprintf(w, "  %s %s%s\n", warn.Sprint("why:"), why, faint.Sprint(more))
			}
		}
		if len(f.Fixes) > 0 {
			fx := f.Fixes[0]
			fmt.Fprintf(w, "  %s %s\n", warn.Sprint("fix:"), fx.Message)
			for _, l := range r.fixPreview(fx) {
				switch l[0] {
				case '-':
					fmt.Fprintf(w, "    %s\n", del.Sprint(expandTabs(l)))
				case '+':
					fmt.Fprintf(w, "    %s\n", add.Sprint(expandTabs(l)))
				default:
					fmt.Fprintf(w, "    %s\n", faint.Sprint(expandTabs(l)))
				}
			}
		}
	}
	if len(findings) == 0 {
		_, err := fmt.Fprintln(w, faint.Sprint("no findings"))
		return err
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, counts[n]))
	}
	noun := "findings"
	if len(findings) == 1 {
		noun = "finding"
	}
	_, err := fmt.Fprintf(w, "\n%s (%s)\n", warn.Sprintf("%d %s", len(findings), noun), strings.Join(parts, ", "))
	return err
}

// fixPreview returns the changed lines of fix as "-old"/"+new" lines,
// at most maxPreview of them.
func (r *renderer) fixPreview(fx Fix) []string {
	const maxPreview = 12
	byFile := make(map[string][]Edit)
	var files []string
	for _, e := range fx.Edits {
		if _, ok := byFile[e.File]; !ok {
			files = append(files, e.File)
		}
		byFile[e.File] = append(byFile[e.File], e)
	}
	sort.Strings(files)
	var out []string
	for _, file := range files {
		src := r.source(file)
		fixed, err := applyEdits(src, byFile[file])
		if err != nil {
			continue
		}
		if len(files) > 1 {
			out = append(out, " "+relPath(r.wd, file)+":")
		}
		a, b := splitLines(string(src)), splitLines(string(fixed))
		hunks := unifiedHunks(a, b, 0)
		for _, h := range hunks {
			if h.an == 0 {
				// A pure insertion: show the line before it to place it.
				hunks = unifiedHunks(a, b, 1)
				break
			}
		}
		for _, h := range hunks {
			for _, l := range h.lines {
				out = append(out, strings.TrimSuffix(l, "\n"))
			}
		}
	}
	if len(out) > maxPreview {
		n := len(out) - maxPreview
		out = append(out[:maxPreview], fmt.Sprintf(" ... %d more lines (see cancelcheck -fix -diff)", n))
	}
	return out
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// displayWidth is the width of the first n bytes of s with tabs expanded
// as in expandTabs.
func displayWidth(s string, n int) int {
	n = min(n, len(s))
	w := 0
	for _, r := range s[:max(n, 0)] {
		if r == '\t' {
			w += 4
		} else {
			w++
		}
	}
	return w
}
