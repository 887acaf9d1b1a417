package driver

import (
	"bytes"
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
	lines  map[string][]int  // line start offsets of the files in files, made on demand

	// version is the tool's version for SARIF (Version()).
	version string
	// suppressed are findings a baseline accepted: SARIF lists them as
	// suppressed results, the other formats leave them out.
	suppressed []*Finding
	// baselineFile is the -baseline file that accepted them.
	baselineFile string
	// loadErrors are the packages that could not be loaded or
	// type-checked: SARIF reports them as tool execution notifications,
	// JSON under the key loadErrorsKey.
	loadErrors []loadError
}

// A loadError is a package that could not be loaded or type-checked, so
// was not analyzed.
type loadError struct {
	Package string // import path, or the patterns when the go command named none
	Err     string // the go command's text
}

func newRenderer(wd, root string, checks []analyzers.Check, color bool) *renderer {
	return &renderer{
		wd:      wd,
		root:    root,
		checks:  checks,
		color:   color,
		files:   make(map[string][]byte),
		version: toolVersion(),
	}
}

// maxRelated is how many related places of a finding the human-facing
// formats (human, text, github, SARIF) list; a line after them says how
// many more there are. JSON lists them all, as go/analysis does.
const maxRelated = 50

// shownRelated returns the related places of f to list and how many are
// left out.
func shownRelated(f *Finding) ([]Related, int) {
	if len(f.Related) <= maxRelated {
		return f.Related, 0
	}
	return f.Related[:maxRelated], len(f.Related) - maxRelated
}

// morePlaces is the line that stands for n related places left out.
func morePlaces(n int) string { return fmt.Sprintf("... and %d more places", n) }

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

// lineStarts returns the offsets of the start of file and of the byte
// after each of its newlines: the starts of its lines, and the end of the
// file when it ends in a newline. The file is read and indexed once.
func (r *renderer) lineStarts(file string) []int {
	if starts, ok := r.lines[file]; ok {
		return starts
	}
	data := r.source(file)
	starts := make([]int, 1, bytes.Count(data, []byte("\n"))+1)
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	if r.lines == nil {
		r.lines = make(map[string][]int)
	}
	r.lines[file] = starts
	return starts
}

// line returns the text of line n (1-based) of file, without its line
// ending.
func (r *renderer) line(file string, n int) (string, bool) {
	starts := r.lineStarts(file)
	data := r.files[file]
	count := len(starts) // lines
	if len(data) == 0 || data[len(data)-1] == '\n' {
		count-- // the last start is the end of the file
	}
	if n < 1 || n > count {
		return "", false
	}
	end := len(data)
	if n < len(starts) {
		end = starts[n]
	}
	l := data[starts[n-1]:end]
	l = bytes.TrimSuffix(l, []byte("\n"))
	l = bytes.TrimSuffix(l, []byte("\r"))
	return string(l), true
}

// lineOf returns the 1-based line of file holding byte offset off and the
// offset at which that line starts.
func (r *renderer) lineOf(file string, off int) (line, start int) {
	starts := r.lineStarts(file)
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) // the line after off's
	if i == 0 {
		return 1, 0
	}
	return i, starts[i-1]
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
		related, more := shownRelated(f)
		for _, rel := range related {
			fmt.Fprintf(w, "\t%s: %s\n", r.posString(rel.Pos), rel.Message)
		}
		if more > 0 {
			fmt.Fprintf(w, "\t%s\n", morePlaces(more))
		}
	}
	return nil
}

// loadErrorsKey is the top-level key under which JSON output lists the
// packages that could not be loaded or type-checked. No package ID can be
// it: import paths have no colon.
const loadErrorsKey = "cancelcheck:load-errors"

// json prints the go/analysis JSON tree: package ID -> check ->
// diagnostics, with every related place. Packages that could not be
// loaded or type-checked are listed under loadErrorsKey, in the shape
// go/analysis gives an analyzer's error: package -> {"error": text}.
func (r *renderer) json(w io.Writer, findings []*Finding) error {
	diags := jsonTree(findings)
	var tree any = diags
	if len(r.loadErrors) > 0 {
		type jsonError struct {
			Error string `json:"error"`
		}
		out := make(map[string]any, len(diags)+1)
		for id, checks := range diags {
			out[id] = checks
		}
		errs := make(map[string]jsonError)
		for _, e := range r.loadErrors {
			if prev, ok := errs[e.Package]; ok {
				e.Err = prev.Error + "\n" + e.Err
			}
			errs[e.Package] = jsonError{e.Err}
		}
		out[loadErrorsKey] = errs
		tree = out
	}
	data, err := json.MarshalIndent(tree, "", "\t")
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
		// The annotation's message lists the related places below the
		// message, one a line.
		msg := f.Message
		related, more := shownRelated(f)
		for _, rel := range related {
			msg += fmt.Sprintf("\n%s:%d:%d: %s", filepath.ToSlash(relPath(r.root, rel.Pos.File)), rel.Pos.Line, rel.Pos.Col, rel.Message)
		}
		if more > 0 {
			msg += "\n" + morePlaces(more)
		}
		if _, err := fmt.Fprintf(w, "::warning %s::%s\n", props, ghData(msg)); err != nil {
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
		related, more := shownRelated(f)
		for _, rel := range related {
			fmt.Fprintf(w, "  %s %s\n", faint.Sprint(r.posString(rel.Pos)+":"), rel.Message)
		}
		if more > 0 {
			fmt.Fprintf(w, "  %s\n", faint.Sprint(morePlaces(more)))
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
		src, edits, ok := r.editWindow(file, byFile[file])
		if !ok {
			continue
		}
		fixed, err := applyEdits(src, edits)
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

// editWindow returns the lines of file that edits touch, with a line
// more on each side, and the edits made relative to them: a preview need
// not copy and split the whole file. ok is false when an edit lies
// outside the file.
func (r *renderer) editWindow(file string, edits []Edit) (window []byte, rel []Edit, ok bool) {
	src := r.source(file)
	if len(edits) == 0 {
		return src, edits, true
	}
	lo, hi := len(src), 0
	for _, e := range edits {
		if e.Start < 0 || e.End < e.Start || e.End > len(src) {
			return nil, nil, false
		}
		lo, hi = min(lo, e.Start), max(hi, e.End)
	}
	starts := r.lineStarts(file)
	first, _ := r.lineOf(file, lo)
	last, _ := r.lineOf(file, hi)
	from := starts[max(first-2, 0)] // the start of the line before
	to := len(src)
	if last+1 < len(starts) {
		to = starts[last+1] // the end of the line after
	}
	rel = make([]Edit, len(edits))
	for i, e := range edits {
		e.Start -= from
		e.End -= from
		rel[i] = e
	}
	return src[from:to], rel, true
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
