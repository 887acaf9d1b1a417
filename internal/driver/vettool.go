package driver

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/suite/vet"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/config"
)

// isVetProtocol reports whether args are go vet talking to its vet tool:
// the -V=full and -flags handshakes, or a unit's *.cfg file last.
func isVetProtocol(args []string) bool {
	for _, a := range args {
		switch a {
		case "-V=full", "--V=full", "-flags", "--flags":
			return true
		}
	}
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg") && !strings.HasPrefix(args[len(args)-1], "-")
}

// triState is a boolean flag that knows whether it was set.
type triState int

const (
	unset triState = iota
	setTrue
	setFalse
)

func (ts *triState) IsBoolFlag() bool { return true }
func (ts *triState) Get() any         { return *ts == setTrue }
func (ts *triState) String() string {
	if ts != nil && *ts == setFalse {
		return "false"
	}
	return "true"
}
func (ts *triState) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*ts = setFalse
	if b {
		*ts = setTrue
	}
	return nil
}

// selectChecks applies the -<check> flags to the checks cfg enables. As in
// go vet, if any -<check>=true flag is given only those checks run;
// otherwise -<check>=false turns a check off.
func selectChecks(checks []analyzers.Check, cfg *config.Config, enable map[string]*triState) ([]*analysis.Analyzer, error) {
	anyTrue := false
	for _, ts := range enable {
		anyTrue = anyTrue || *ts == setTrue
	}
	var out []*analysis.Analyzer
	for _, chk := range checks {
		name := chk.Analyzer.Name
		on := cfg.Enabled(chk)
		if ts := enable[name]; ts != nil {
			switch {
			case anyTrue:
				on = *ts == setTrue
			case *ts == setFalse:
				on = false
			}
		}
		if !on {
			continue
		}
		a, err := cfg.Bind(chk)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// unitConfig is the part of go vet's *.cfg file the driver reads itself.
type unitConfig struct {
	ID         string
	Dir        string
	GoFiles    []string
	VetxOnly   bool
	VetxOutput string
	Stdout     string
}

// vetTool implements the vet-tool protocol: the handshakes, then one
// compilation unit per process through unitchecker, with the
// configuration applied and every analyzer guarded against panics.
func vetTool(checks []analyzers.Check, args []string) int {
	progname := filepath.Base(os.Args[0])
	fs := flag.NewFlagSet(progname, flag.ContinueOnError)
	var (
		jsonOut    = fs.Bool("json", false, "emit JSON output")
		context    = fs.Int("c", -1, "display offending line with this many lines of context")
		fix        = fs.Bool("fix", false, "apply all suggested fixes")
		diff       = fs.Bool("diff", false, "with -fix, don't update the files, but print a unified diff")
		printFlags = fs.Bool("flags", false, "print analyzer flags in JSON")
		version    = fs.String("V", "", "print version and exit")
		configPath = fs.String("config", "", "configuration file (default: the nearest "+config.FileName+" above the package)")
		tests      = fs.Bool("tests", true, "analyze _test.go files")
		withVet    = fs.Bool("vet", false, "also run go vet's own analyzers (printf, copylocks, ...), so one go vet run type-checks once and reports both")
		named      = fs.Bool("name", true, "end each message in the check's name, [check] (go vet prints no analyzer names)")
	)
	// The standalone driver passes the content hash of -config so that go
	// vet's cache, keyed by the tool's flags, notices edits to the file.
	fs.String("config-hash", "", "content hash of the -config file (part of go vet's cache key)")
	enable := make(map[string]*triState)
	for _, chk := range checks {
		ts := new(triState)
		enable[chk.Analyzer.Name] = ts
		fs.Var(ts, chk.Analyzer.Name, "enable the "+chk.Analyzer.Name+" check")
	}
	if err := fs.Parse(args); err != nil {
		return 1
	}
	testsSet := false
	fs.Visit(func(f *flag.Flag) { testsSet = testsSet || f.Name == "tests" })

	if *printFlags {
		type jsonFlag struct {
			Name  string
			Bool  bool
			Usage string
		}
		var flags []jsonFlag
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "fix" {
				return // go vet handles -fix itself
			}
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			flags = append(flags, jsonFlag{f.Name, ok && b.IsBoolFlag(), f.Usage})
		})
		data, _ := json.MarshalIndent(flags, "", "\t")
		os.Stdout.Write(data)
		return 0
	}
	if *version != "" {
		if *version != "full" {
			fmt.Fprintf(os.Stderr, "%s: unsupported flag value: -V=%s (use -V=full)\n", progname, *version)
			return 1
		}
		id, err := toolID(*configPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
			return 1
		}
		fmt.Printf("%s version devel comments-go-here buildID=%x\n", progname, id)
		return 0
	}
	if fs.NArg() != 1 || !strings.HasSuffix(fs.Arg(0), ".cfg") {
		fmt.Fprintf(os.Stderr, "%s: the vet-tool protocol needs one *.cfg file\n", progname)
		return 1
	}
	cfgFile := fs.Arg(0)
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
		return 1
	}
	var unit unitConfig
	if err := json.Unmarshal(data, &unit); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot decode %s: %v\n", progname, cfgFile, err)
		return 1
	}

	path := *configPath
	if path == "" && unit.Dir != "" {
		path = config.Find(unit.Dir)
	}
	cfg := &config.Config{}
	if path != "" {
		if cfg, err = config.Load(path, checks); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
			return 1
		}
	}
	selected, err := selectChecks(checks, cfg, enable)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
		return 1
	}
	includeTests := cfg.IncludeTests()
	if testsSet {
		includeTests = *tests
	}
	if !includeTests {
		var kept []string
		for _, f := range unit.GoFiles {
			if !strings.HasSuffix(f, "_test.go") {
				kept = append(kept, f)
			}
		}
		if len(kept) == 0 {
			// An external test package: nothing to analyze, and nothing
			// depends on its facts.
			return 0
		}
		if len(kept) < len(unit.GoFiles) {
			var raw map[string]any
			if err := json.Unmarshal(data, &raw); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
				return 1
			}
			raw["GoFiles"] = kept
			out, _ := json.Marshal(raw)
			cfgFile = strings.TrimSuffix(cfgFile, ".cfg") + "-notests.cfg"
			if err := os.WriteFile(cfgFile, out, 0o666); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
				return 1
			}
		}
	}

	// unitchecker parses its own flags: hand it only the ones it knows,
	// on a fresh flag set, with the analyzers already chosen.
	os.Args = []string{os.Args[0]}
	if *jsonOut {
		os.Args = append(os.Args, "-json")
	}
	if *fix {
		os.Args = append(os.Args, "-fix")
	}
	if *diff {
		os.Args = append(os.Args, "-diff")
	}
	if *context >= 0 {
		os.Args = append(os.Args, "-c="+strconv.Itoa(*context))
	}
	os.Args = append(os.Args, cfgFile)
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	registerFacts(checks)
	if *withVet {
		selected = append(selected, vetSuite()...)
	}
	if unit.VetxOnly {
		selected = factProducers(selected)
	}
	tuneGC()
	unitchecker.Main(guard(selected, *named)...) // exits
	return 0
}

// vetSuite returns go vet's own analyzers, as x/tools' suite/vet lists
// them, to run beside the checks: without lostcancel, whose leaks
// leaseleak reports (one bug, one finding), and with vet's directive
// analyzer renamed vetdirective, since the suite's directive check has
// that name (analyzer names are flags and keys of the JSON output).
func vetSuite() []*analysis.Analyzer {
	var out []*analysis.Analyzer
	for _, a := range vet.Suite {
		switch a.Name {
		case "lostcancel":
			continue
		case "directive":
			c := *a
			c.Name = "vetdirective"
			a = &c
		}
		out = append(out, a)
	}
	return out
}

// tuneGC trades some of a unit's short-lived heap for less collection
// work, unless the user set GOGC or GOMEMLIMIT: a vet-tool process
// type-checks one package, runs the checks and exits, and the default
// target collects several times over a heap it then throws away. The soft
// limit keeps the largest packages (package runtime's facts, go/types) near
// the peak memory they had with the default.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcMemLimit)
	}
}

const (
	gcPercent  = 200
	gcMemLimit = 96 << 20
)

// toolID identifies the tool for go vet's cache: the executable's
// contents and the configuration that applies from the working directory
// (go vet runs -V=full there), so editing .cancelcheck.yml invalidates the
// cached results.
func toolID(configPath string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	f, err := os.Open(exe)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return nil, err
	}
	if configPath == "" {
		if wd, err := os.Getwd(); err == nil {
			configPath = config.Find(wd)
		}
	}
	if configPath != "" {
		if data, err := os.ReadFile(configPath); err == nil {
			fmt.Fprintf(h, "\x00config %s\x00", configPath)
			h.Write(data)
		}
	}
	return h.Sum(nil), nil
}

// factProducers returns the analyzers among roots and what they require
// that export facts. A unit vetted only for its facts (a dependency of the
// packages asked for) needs nothing else: unitchecker keeps every analyzer
// that merely requires a fact producer, so without this each dependency
// would run every check only to throw its findings away.
func factProducers(roots []*analysis.Analyzer) []*analysis.Analyzer {
	var out []*analysis.Analyzer
	for _, a := range required(roots) {
		if len(a.FactTypes) > 0 {
			out = append(out, a)
		}
	}
	return out
}

// registerFacts registers with gob the fact types of every check, on or
// off, as unitchecker does for checks turned off by flag, in case imported
// vetx files hold them.
func registerFacts(checks []analyzers.Check) {
	roots := make([]*analysis.Analyzer, len(checks))
	for i, c := range checks {
		roots[i] = c.Analyzer
	}
	for _, a := range required(roots) {
		for _, f := range a.FactTypes {
			gob.Register(f)
		}
	}
}

// required returns roots and everything they require, each once, every
// analyzer after those it requires.
func required(roots []*analysis.Analyzer) []*analysis.Analyzer {
	seen := make(map[*analysis.Analyzer]bool)
	var out []*analysis.Analyzer
	var visit func(a *analysis.Analyzer)
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		out = append(out, a)
	}
	for _, a := range roots {
		visit(a)
	}
	return out
}
