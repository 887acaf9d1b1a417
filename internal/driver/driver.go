// Package driver is the cancelcheck command. Invoked by go vet it is a vet
// tool (unitchecker, one package per process, facts and export data from
// the go command's cache). Invoked directly it runs go vet with itself as
// the vet tool, reads the JSON diagnostics, and filters, fixes and renders
// them: for people (colour, source line, caret, why and fix), as plain
// text, as go/analysis JSON, as SARIF 2.1.0, or as GitHub Actions
// annotations.
//
// Exit codes: 0 no findings; 1 usage, configuration or internal errors
// (including a check that panicked); 2 packages that could not be loaded
// or type-checked; 3 findings.
package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/config"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

// Exit codes.
const (
	ExitClean    = 0 // no findings
	ExitError    = 1 // usage, configuration or internal error
	ExitLoad     = 2 // some packages could not be loaded or type-checked
	ExitFindings = 3 // findings
)

// Main runs the command with os.Args and returns its exit code. checks is
// the suite; the directive check is added to it.
func Main(checks []analyzers.Check) int {
	checks = directive.WithSuite(checks)
	args := os.Args[1:]
	if isVetProtocol(args) {
		return vetTool(checks, args)
	}
	return (&command{
		checks: checks,
		stdout: os.Stdout,
		stderr: os.Stderr,
	}).run(args)
}

type command struct {
	checks         []analyzers.Check
	stdout, stderr io.Writer
	// wd is the working directory; "" means os.Getwd.
	wd string
	// terminal reports whether a writer is a terminal (progress is drawn
	// on stderr only then); nil means isTerminal.
	terminal func(io.Writer) bool
	// progressEvery is the least time between progress redraws; 0 means
	// defaultProgressEvery.
	progressEvery time.Duration
}

func (c *command) errorf(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "cancelcheck: "+format+"\n", args...)
	return ExitError
}

const usage = `cancelcheck finds cancellation misuse in Go code.

Usage:
	cancelcheck [flags] [packages]     (default ./...)
	cancelcheck -list
	cancelcheck -explain <check>
	go vet -vettool=$(command -v cancelcheck) [flags] [packages]

Exit codes: 0 no findings, 1 usage/configuration/internal error,
2 packages that do not load or type-check, 3 findings.

Flags:
`

func (c *command) run(args []string) int {
	fs := flag.NewFlagSet("cancelcheck", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		list          = fs.Bool("list", false, "list the checks, one line each, and exit")
		version       = fs.Bool("version", false, "print cancelcheck's version and exit")
		explain       = fs.String("explain", "", "print the documentation of `check` and exit")
		format        = fs.String("format", "", "output `format`: human (default on a terminal), text, json, sarif or github")
		jsonOut       = fs.Bool("json", false, "same as -format=json: go/analysis JSON")
		colorMode     = fs.String("color", "auto", "colour in human output: auto, always or never")
		fix           = fs.Bool("fix", false, "apply the first suggested fix of each finding")
		diff          = fs.Bool("diff", false, "with -fix, print the fixes as a unified diff instead of applying them")
		tests         = fs.Bool("tests", true, "analyze _test.go files")
		configPath    = fs.String("config", "", "configuration `file` (default: the nearest "+config.FileName+" above each package)")
		tags          = fs.String("tags", "", "build `tags` (passed to go vet)")
		newFromRev    = fs.String("new-from-rev", "", "report only findings on lines changed since git `revision`")
		baselinePath  = fs.String("baseline", "", "do not report the findings recorded in this baseline `file`")
		writeBaseline = fs.String("write-baseline", "", "record all current findings in this baseline `file` and exit 0")
		quiet         = fs.Bool("quiet", false, "do not show progress (packages analyzed so far) on stderr, which is shown only on a terminal")
	)
	enable := make(map[string]*triState)
	for _, chk := range c.checks {
		ts := new(triState)
		enable[chk.Analyzer.Name] = ts
		state := "on"
		if chk.OffByDefault {
			state = "off"
		}
		fs.Var(ts, chk.Analyzer.Name, fmt.Sprintf("run the %s check (default %s): %s", chk.Analyzer.Name, state, chk.Summary()))
	}
	fs.Usage = func() {
		fmt.Fprint(c.stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return ExitClean
		}
		return ExitError
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	switch {
	case *version:
		fmt.Fprintln(c.stdout, "cancelcheck", Version())
		return ExitClean
	case *list:
		c.list()
		return ExitClean
	case *explain != "":
		return c.explain(*explain)
	}
	if *jsonOut {
		if set["format"] && *format != "json" {
			return c.errorf("-json and -format=%s cannot be used together", *format)
		}
		*format = "json"
	}
	if *format == "" {
		*format = "text"
		if f, ok := c.stdout.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			*format = "human"
		}
	}
	render, ok := renderers[*format]
	if !ok {
		return c.errorf("unknown -format=%s; allowed: human, text, json, sarif, github", *format)
	}
	if *diff && !*fix {
		return c.errorf("-diff needs -fix (it prints the fixes instead of applying them)")
	}
	if *writeBaseline != "" && (*fix || *baselinePath != "") {
		return c.errorf("-write-baseline cannot be combined with -fix or -baseline")
	}

	wd := c.wd
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return c.errorf("%v", err)
		}
	}
	// Validate the configuration up front for a clear error; the vet tool
	// reads it again for each package.
	cfgFile := *configPath
	if cfgFile != "" {
		abs, err := filepath.Abs(cfgFile)
		if err != nil {
			return c.errorf("%v", err)
		}
		cfgFile = abs
	} else {
		cfgFile = config.Find(wd)
	}
	if cfgFile != "" {
		if _, err := config.Load(cfgFile, c.checks); err != nil {
			return c.errorf("%v", err)
		}
	}

	var base *baseline
	if *baselinePath != "" {
		var err error
		if base, err = readBaseline(*baselinePath); err != nil {
			return c.errorf("%v", err)
		}
	}

	// Run go vet with ourselves as the vet tool.
	self, err := os.Executable()
	if err != nil {
		return c.errorf("cannot find my own executable: %v", err)
	}
	vetArgs := []string{"vet", "-vettool=" + self, "-json", "-name=false"}
	if *tags != "" {
		vetArgs = append(vetArgs, "-tags="+*tags)
	}
	if *configPath != "" {
		data, err := os.ReadFile(cfgFile)
		if err != nil {
			return c.errorf("%v", err)
		}
		sum := sha256.Sum256(data)
		vetArgs = append(vetArgs, "-config="+cfgFile, "-config-hash="+hex.EncodeToString(sum[:8]))
	}
	if set["tests"] {
		vetArgs = append(vetArgs, "-tests="+strconv.FormatBool(*tests))
	}
	var names []string
	for name := range enable {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if ts := enable[name]; *ts != unset {
			vetArgs = append(vetArgs, "-"+name+"="+ts.String())
		}
	}
	pkgs := fs.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	var prog *progress
	terminal := c.terminal
	if terminal == nil {
		terminal = isTerminal
	}
	if !*quiet && terminal(c.stderr) {
		prog = newProgress(c.stderr, c.progressEvery)
	}
	units := &unitCounter{wd: wd, tags: *tags, checks: c.checks}
	if *configPath != "" {
		units.config = cfgFile
	}
	if set["tests"] {
		units.tests = tests
	}
	vet := func(pkgs []string) (stdout, stderr *bytes.Buffer, err error) {
		stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
		cmd := exec.Command("go", append(append(slices.Clip(vetArgs), "--"), pkgs...)...)
		cmd.Dir = wd
		cmd.Stdout = stdout
		cmd.Stderr = stderr
		if prog != nil {
			prog.start(func(ctx context.Context) (int, bool) { return units.count(ctx, pkgs) })
			defer prog.finish()
			cmd.Stdout = io.MultiWriter(stdout, &valueCounter{add: prog.add})
			cmd.Stderr = io.MultiWriter(stderr, &headerCounter{add: prog.add})
		}
		return stdout, stderr, cmd.Run()
	}
	stdout, stderr, runErr := vet(pkgs)
	partial := false
	var unloaded []loadError
	if runErr != nil && stdout.Len() == 0 {
		// go vet stops before vetting anything when a package cannot be
		// loaded at all (an import no module provides): vet the packages
		// that load, and report the others below.
		var ok []string
		if ok, unloaded = loadable(wd, *tags, pkgs); len(ok) > 0 {
			loadErr := stderr
			stdout, stderr, runErr = vet(ok)
			loadErr.Write(stderr.Bytes())
			stderr, partial = loadErr, true
		}
	}
	if _, ok := runErr.(*exec.ExitError); runErr != nil && !ok {
		return c.errorf("running go vet: %v", runErr)
	}
	findings, unitErrs, err := parseVetJSON(stdout)
	if err != nil {
		return c.errorf("%v", err)
	}

	exit := ExitClean
	var loadErrs []loadError
	// Problems the go command reported: packages that do not load or
	// type-check, or (rarely) the vet tool failing outright.
	if runErr != nil || partial || strings.Contains(stderr.String(), "\n# ") {
		text := strings.TrimRight(stderr.String(), "\n")
		switch {
		case strings.Contains(text, config.FileName+":"):
			// A configuration file nearer to some packages is broken.
			fmt.Fprintf(c.stderr, "cancelcheck: bad configuration:\n%s\n", text)
			exit = ExitError
		case strings.Contains(text, "panic: ") || strings.Contains(text, "go: error obtaining buildID"):
			fmt.Fprintf(c.stderr, "cancelcheck: internal error running the vet tool; please report it at %s:\n%s\n", bugURL, text)
			exit = ExitError
		default:
			fmt.Fprintf(c.stderr, "cancelcheck: some packages could not be loaded or type-checked, so they were not analyzed:\n%s\n", text)
			exit = ExitLoad
			loadErrs = loadErrors(text, partial, unloaded, pkgs)
		}
	} else if stderr.Len() > 0 {
		c.stderr.Write(stderr.Bytes())
	}
	for _, e := range unitErrs {
		fmt.Fprintf(c.stderr, "cancelcheck: %s on %s: %s\n", e.Check, e.Package, e.Err)
		exit = ExitError
	}
	var kept []*Finding
	for _, f := range findings {
		if f.Category == InternalErrorCategory {
			fmt.Fprintf(c.stderr, "%s: %s\n", relPath(wd, f.Pos.File)+f.Pos.String()[len(f.Pos.File):], f.Message)
			exit = ExitError
			continue
		}
		kept = append(kept, f)
	}
	findings = kept

	if *newFromRev != "" {
		changed, err := changedLines(wd, *newFromRev)
		if err != nil {
			return c.errorf("-new-from-rev: %v", err)
		}
		findings = changed.filter(findings)
	}
	if *writeBaseline != "" {
		if err := writeBaselineFile(*writeBaseline, findings); err != nil {
			return c.errorf("%v", err)
		}
		fmt.Fprintf(c.stderr, "cancelcheck: recorded %d findings in %s\n", len(findings), *writeBaseline)
		return exit
	}
	var accepted []*Finding
	if base != nil {
		findings, accepted = base.split(findings)
	}

	if *fix {
		code, err := c.applyFixes(wd, findings, *diff)
		if err != nil {
			return c.errorf("%v", err)
		}
		return max(exit, code)
	}

	r := newRenderer(wd, repoRoot(wd), c.checks, useColor(*colorMode, c.stdout))
	r.suppressed, r.baselineFile = accepted, *baselinePath
	r.loadErrors = loadErrs
	if err := render(r, c.stdout, findings); err != nil {
		return c.errorf("writing output: %v", err)
	}
	if len(findings) > 0 && exit == ExitClean {
		exit = ExitFindings
	}
	return exit
}

func (c *command) list() {
	w := 0
	for _, chk := range c.checks {
		w = max(w, len(chk.Analyzer.Name))
	}
	for _, chk := range c.checks {
		state := ""
		if chk.OffByDefault {
			state = " (off by default)"
		}
		fmt.Fprintf(c.stdout, "%-*s  %s%s\n", w, chk.Analyzer.Name, chk.Summary(), state)
	}
}

func (c *command) explain(name string) int {
	for _, chk := range c.checks {
		if chk.Analyzer.Name == name {
			fmt.Fprintln(c.stdout, chk.Analyzer.Doc)
			if chk.Analyzer.URL != "" {
				fmt.Fprintf(c.stdout, "\nMore: %s\n", chk.Analyzer.URL)
			}
			if keys := chk.SettingKeys(); len(keys) > 0 {
				fmt.Fprintf(c.stdout, "Settings (%s, settings.%s): %s\n", config.FileName, name, strings.Join(keys, ", "))
			}
			return ExitClean
		}
	}
	var names []string
	for _, chk := range c.checks {
		names = append(names, chk.Analyzer.Name)
	}
	return c.errorf("no check named %q; known checks: %s", name, strings.Join(names, ", "))
}

// toolVersion is Version, except in tests (whose golden files must not
// name the Go release).
var toolVersion = Version

// Version returns the module version cancelcheck was built from, with the
// VCS revision when known.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v + " " + bi.GoVersion
}

// checkInfo returns the registered check called name.
func checkInfo(checks []analyzers.Check, name string) (analyzers.Check, bool) {
	for _, c := range checks {
		if c.Analyzer.Name == name {
			return c, true
		}
	}
	return analyzers.Check{}, false
}

// loadable returns the packages among patterns whose own files and
// dependencies load, by go list -e, and the errors of the others; nil
// when go list fails.
func loadable(wd, tags string, patterns []string) (ok []string, failed []loadError) {
	args := []string{"list", "-e", "-json=ImportPath,Error,DepsErrors"}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	cmd := exec.Command("go", append(append(args, "--"), patterns...)...)
	cmd.Dir = wd
	out, err := cmd.Output()
	if err != nil {
		return nil, nil
	}
	type listError struct{ Pos, Err string }
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Error      *listError
			DepsErrors []*listError
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil
		}
		if p.Error == nil && len(p.DepsErrors) == 0 {
			ok = append(ok, p.ImportPath)
			continue
		}
		var msgs []string
		for _, e := range append([]*listError{p.Error}, p.DepsErrors...) {
			switch {
			case e == nil:
			case e.Pos != "" && !strings.HasPrefix(e.Err, e.Pos):
				msgs = append(msgs, e.Pos+": "+e.Err)
			default:
				msgs = append(msgs, e.Err)
			}
		}
		failed = append(failed, loadError{p.ImportPath, strings.Join(msgs, "\n")})
	}
	return ok, failed
}

// loadErrors attributes the go command's complaints (text, its stderr) to
// packages: each "# path" header starts the errors of one (a type-check
// error); when some packages did not load at all (partial), unloaded holds
// their errors from go list, and the text above the first header is
// theirs. Text no package claims is put under the patterns.
func loadErrors(text string, partial bool, unloaded []loadError, patterns []string) []loadError {
	errs := slices.Clip(unloaded)
	var orphan []string
	cur := -1 // the errors' index of the package being read
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if path, ok := strings.CutPrefix(l, "# "); ok {
			if strings.HasPrefix(path, "[") && i > 0 && strings.HasPrefix(lines[i-1], "# ") {
				continue // "# [desc]" below "# path"
			}
			errs = append(errs, loadError{Package: path})
			cur = len(errs) - 1
			continue
		}
		if cur < 0 {
			// go: downloading/finding lines are progress, not errors.
			if !partial && l != "" && !strings.HasPrefix(l, "go: downloading ") && !strings.HasPrefix(l, "go: finding ") {
				orphan = append(orphan, l)
			}
			continue
		}
		if errs[cur].Err != "" {
			errs[cur].Err += "\n"
		}
		errs[cur].Err += l
	}
	for i := range errs {
		errs[i].Err = strings.TrimSpace(errs[i].Err)
	}
	if len(orphan) > 0 {
		errs = append(errs, loadError{strings.Join(patterns, " "), strings.Join(orphan, "\n")})
	}
	return errs
}
