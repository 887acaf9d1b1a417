package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/config"
)

// Progress on a terminal: while go vet runs, the driver counts the units
// (packages, and their test variants) it finishes and rewrites one line
// of stderr in place, "cancelcheck: 12/345 packages".
//
// go vet has no progress output of its own, so the count comes from what
// it prints: for every unit it analyzes, from its cache or not, it copies
// the vet tool's stdout, exactly one JSON value ("{}" when the unit has no
// findings); for a unit that does not type-check it prints a "# path"
// header and the errors on stderr. The total comes from go list -find
// (which reads directories, no dependencies) of the same patterns,
// counted as go vet counts: a unit for a package's files and in-package
// tests, one for its external tests. Units whose dependencies failed are
// skipped without a word, so a run with broken packages may end short of
// the total; the line is erased when go vet ends either way.

// defaultProgressEvery is the least time between two redraws.
const defaultProgressEvery = 100 * time.Millisecond

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// A progress draws "cancelcheck: done/total packages" on a terminal.
type progress struct {
	w     io.Writer
	every time.Duration
	now   func() time.Time

	mu     sync.Mutex
	active bool
	done   int
	total  int // -1 until known
	last   time.Time
	width  int // of what is on the line now
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newProgress(w io.Writer, every time.Duration) *progress {
	if every <= 0 {
		every = defaultProgressEvery
	}
	return &progress{w: w, every: every, now: time.Now}
}

// start begins counting a go vet run over pkgs; the total is computed
// concurrently by units.
func (p *progress) start(units func(ctx context.Context) (int, bool)) {
	p.mu.Lock()
	p.active, p.done, p.total = true, 0, -1
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.mu.Unlock()
	if units == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if n, ok := units(ctx); ok {
			p.setTotal(n)
		}
	}()
}

func (p *progress) setTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.total = n
	p.draw(true)
}

// add counts n finished units.
func (p *progress) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.done += n
	p.draw(false)
}

// draw rewrites the line, at most once per p.every unless force. p.mu is
// held.
func (p *progress) draw(force bool) {
	now := p.now()
	if !force && !p.last.IsZero() && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	var s string
	if p.total >= 0 {
		s = fmt.Sprintf("cancelcheck: %d/%d packages", min(p.done, p.total), p.total)
	} else {
		s = fmt.Sprintf("cancelcheck: %d packages", p.done)
	}
	pad := ""
	if len(s) < p.width {
		pad = strings.Repeat(" ", p.width-len(s))
	}
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
	p.width = max(p.width, len(s))
}

// finish stops counting (and the total's computation) and erases the
// line, so that what follows starts on a clean one.
func (p *progress) finish() {
	p.mu.Lock()
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = false
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
	p.last = time.Time{}
}

// A valueCounter counts the top-level JSON values written to it (go vet
// -json's stdout: one per unit), calling add as each one ends. It reads
// only braces, brackets and strings, so it does not care how the values
// are indented or split into writes.
type valueCounter struct {
	add             func(int)
	depth           int
	inString, quote bool // in a string; after a backslash in one
}

func (c *valueCounter) Write(b []byte) (int, error) {
	n := 0
	for _, ch := range b {
		switch {
		case c.quote:
			c.quote = false
		case c.inString:
			switch ch {
			case '\\':
				c.quote = true
			case '"':
				c.inString = false
			}
		case ch == '"':
			c.inString = true
		case ch == '{' || ch == '[':
			c.depth++
		case ch == '}' || ch == ']':
			if c.depth > 0 {
				c.depth--
				if c.depth == 0 {
					n++
				}
			}
		}
	}
	if n > 0 {
		c.add(n)
	}
	return len(b), nil
}

// A headerCounter counts the "# path" lines the go command writes to
// stderr above the errors of a unit that failed, calling add for each. The
// "# [desc]" line it may add below one is not another unit.
type headerCounter struct {
	add  func(int)
	col  int  // bytes of the current line seen, up to 3
	hash bool // the line starts with "# "
}

func (c *headerCounter) Write(b []byte) (int, error) {
	n := 0
	for _, ch := range b {
		switch {
		case ch == '\n':
			c.col, c.hash = 0, false
			continue
		case c.col == 0:
			c.hash = ch == '#'
		case c.col == 1:
			c.hash = c.hash && ch == ' '
		case c.col == 2:
			if c.hash && ch != '[' {
				n++
			}
		}
		if c.col < 3 {
			c.col++
		}
	}
	if n > 0 {
		c.add(n)
	}
	return len(b), nil
}

// A unitCounter counts the units go vet analyzes for some patterns.
type unitCounter struct {
	wd, tags string
	checks   []analyzers.Check
	config   string // the -config file, or "" for the nearest to each package
	tests    *bool  // -tests when given
}

// count runs go list -find on patterns and counts the units go vet runs the
// vet tool on and which print a JSON value: one for a package's files
// with its in-package tests, one for its external tests. The vet tool
// skips a unit that has only test files when tests are not analyzed.
func (u *unitCounter) count(ctx context.Context, patterns []string) (int, bool) {
	args := []string{"list", "-e", "-find", "-json=Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles"}
	if u.tags != "" {
		args = append(args, "-tags="+u.tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(append(args, "--"), patterns...)...)
	cmd.Dir = u.wd
	out, err := cmd.Output()
	if err != nil {
		return 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	includeTests := make(map[string]bool) // by configuration file
	n := 0
	for {
		var p struct {
			Dir                                          string
			GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return 0, false
		}
		tests := true
		if u.tests != nil {
			tests = *u.tests
		} else if path := u.configFor(p.Dir); path != "" {
			t, ok := includeTests[path]
			if !ok {
				t = true
				if cfg, err := config.Load(path, u.checks); err == nil {
					t = cfg.IncludeTests()
				}
				includeTests[path] = t
			}
			tests = t
		}
		own := len(p.GoFiles)+len(p.CgoFiles) > 0
		if own || tests && len(p.TestGoFiles) > 0 {
			n++
		}
		if tests && len(p.XTestGoFiles) > 0 {
			n++
		}
	}
	return n, true
}

func (u *unitCounter) configFor(dir string) string {
	if u.config != "" {
		return u.config
	}
	if dir == "" {
		return ""
	}
	return config.Find(dir)
}
