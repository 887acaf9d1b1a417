package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
)

// A baseline records accepted findings so that only new ones are
// reported. A finding's key leaves out line numbers, so the baseline
// survives unrelated edits: it is the check, the package, the enclosing
// function and the message with line and column numbers blanked. When a
// function has several findings with one key, the baseline holds their
// count and the first that many (in source order) stay accepted.
type baseline struct {
	accepted map[baselineKey]int
}

type baselineKey struct {
	Check    string `json:"check"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Message  string `json:"message"`
}

type baselineEntry struct {
	baselineKey
	Count int `json:"count"`
}

type baselineFile struct {
	Comment  string          `json:"comment"`
	Version  int             `json:"version"`
	Findings []baselineEntry `json:"findings"`
}

const baselineVersion = 1

func readBaseline(path string) (*baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f baselineFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a cancelcheck baseline: %v", path, err)
	}
	if f.Version != baselineVersion {
		return nil, fmt.Errorf("%s: baseline version %d, want %d (write it again with -write-baseline)", path, f.Version, baselineVersion)
	}
	b := &baseline{accepted: make(map[baselineKey]int)}
	for _, e := range f.Findings {
		b.accepted[e.baselineKey] += e.Count
	}
	return b, nil
}

func writeBaselineFile(path string, findings []*Finding) error {
	counts := make(map[baselineKey]int)
	kc := newKeyer()
	for _, f := range findings {
		counts[kc.key(f)]++
	}
	out := baselineFile{
		Comment: "Accepted cancelcheck findings: cancelcheck -baseline reports only findings not listed here. Regenerate with cancelcheck -write-baseline.",
		Version: baselineVersion,
	}
	for k, n := range counts {
		out.Findings = append(out.Findings, baselineEntry{k, n})
	}
	sort.Slice(out.Findings, func(i, j int) bool {
		a, b := out.Findings[i], out.Findings[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		return a.Message < b.Message
	})
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o666)
}

// split separates the findings the baseline accepts from the others
// (findings are in source order, and both results stay so).
func (b *baseline) split(findings []*Finding) (kept, accepted []*Finding) {
	left := make(map[baselineKey]int, len(b.accepted))
	for k, n := range b.accepted {
		left[k] = n
	}
	kc := newKeyer()
	for _, f := range findings {
		k := kc.key(f)
		if left[k] > 0 {
			left[k]--
			accepted = append(accepted, f)
			continue
		}
		kept = append(kept, f)
	}
	return kept, accepted
}

// fingerprint is a stable hash of the finding's baseline key and its
// occurrence index, for SARIF's partialFingerprints.
func fingerprint(k baselineKey, index int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d", k.Check, k.Package, k.Function, k.Message, index)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// A keyer computes baseline keys, parsing each file once.
type keyer struct {
	fset  *token.FileSet
	files map[string]*ast.File
}

func newKeyer() *keyer {
	return &keyer{fset: token.NewFileSet(), files: make(map[string]*ast.File)}
}

// positionNumbers matches the line (and column) numbers a message may
// mention, e.g. "x.go:12:3" or "line 12".
var positionNumbers = regexp.MustCompile(`(\.go:)\d+(:\d+)?|\b(line|lines) \d+(-\d+)?`)

func (kc *keyer) key(f *Finding) baselineKey {
	msg := positionNumbers.ReplaceAllStringFunc(f.Message, func(s string) string {
		sub := positionNumbers.FindStringSubmatch(s)
		if sub[1] != "" {
			return sub[1] + "N"
		}
		return sub[3] + " N"
	})
	return baselineKey{
		Check:    f.Check,
		Package:  f.PackagePath(), // not the ID: adding a test file changes it
		Function: kc.enclosing(f.Pos),
		Message:  msg,
	}
}

// enclosing names the function declaration around p ("T.Method", "Func"),
// or "" at package level.
func (kc *keyer) enclosing(p Position) string {
	file, ok := kc.files[p.File]
	if !ok {
		file, _ = parser.ParseFile(kc.fset, p.File, nil, parser.SkipObjectResolution)
		kc.files[p.File] = file
	}
	if file == nil {
		return ""
	}
	tf := kc.fset.File(file.FileStart)
	if p.Line < 1 || p.Line > tf.LineCount() {
		return ""
	}
	pos := tf.LineStart(p.Line) + token.Pos(max(p.Col-1, 0))
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || pos < fd.Pos() || pos >= fd.End() {
			continue
		}
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			return recvName(fd.Recv.List[0].Type) + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
	return ""
}

func recvName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
