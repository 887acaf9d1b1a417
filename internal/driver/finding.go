package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// A Position is a place in a source file; Line and Col are 1-based, Col
// in bytes.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// parsePosn parses go/analysis's "file:line:col" (or "file:line", or "-").
func parsePosn(s string) Position {
	var p Position
	rest := s
	nums := make([]int, 0, 2)
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		nums = append(nums, n)
		rest = rest[:i]
	}
	p.File = rest
	switch len(nums) {
	case 2:
		p.Line, p.Col = nums[1], nums[0]
	case 1:
		p.Line = nums[0]
	}
	return p
}

// An Edit replaces the bytes [Start, End) of File with New.
type Edit struct {
	File  string `json:"filename"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	New   string `json:"new"`
}

// A Fix is one suggested fix of a finding.
type Fix struct {
	Message string `json:"message"`
	Edits   []Edit `json:"edits"`
}

// Related is a secondary place of a finding.
type Related struct {
	Pos     Position
	End     Position
	Message string
}

// A Finding is one diagnostic of one check.
type Finding struct {
	Package  string // the unit's ID, e.g. "example.com/a [example.com/a.test]"
	Check    string // the analyzer that reported it
	Category string
	Pos, End Position
	Message  string
	Fixes    []Fix
	Related  []Related
}

// PackagePath is the import path of the finding's package, without the
// test-variant suffix.
func (f *Finding) PackagePath() string {
	p, _, _ := strings.Cut(f.Package, " ")
	return p
}

// jsonDiagnostic is go/analysis's JSON form of a diagnostic.
type jsonDiagnostic struct {
	Category       string `json:"category,omitempty"`
	Posn           string `json:"posn"`
	End            string `json:"end"`
	Message        string `json:"message"`
	SuggestedFixes []Fix  `json:"suggested_fixes,omitempty"`
	Related        []struct {
		Posn    string `json:"posn"`
		End     string `json:"end"`
		Message string `json:"message"`
	} `json:"related,omitempty"`
}

// A unitError is an analyzer's error for one package (for example a
// failed prerequisite).
type unitError struct {
	Package, Check, Err string
}

// parseVetJSON reads the stream of JSON trees go vet -json prints (one
// per package: ID -> analyzer -> diagnostics or {"error": ...}).
func parseVetJSON(r io.Reader) ([]*Finding, []unitError, error) {
	dec := json.NewDecoder(r)
	var findings []*Finding
	var errs []unitError
	for {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("parsing go vet -json output: %v", err)
		}
		for id, units := range tree {
			for check, raw := range units {
				raw = bytes.TrimSpace(raw)
				if len(raw) > 0 && raw[0] == '{' {
					var e struct {
						Error string `json:"error"`
					}
					if err := json.Unmarshal(raw, &e); err != nil {
						return nil, nil, fmt.Errorf("parsing go vet -json output: %v", err)
					}
					errs = append(errs, unitError{id, check, e.Error})
					continue
				}
				var diags []jsonDiagnostic
				if err := json.Unmarshal(raw, &diags); err != nil {
					return nil, nil, fmt.Errorf("parsing go vet -json output: %v", err)
				}
				for _, d := range diags {
					f := &Finding{
						Package:  id,
						Check:    check,
						Category: d.Category,
						Pos:      parsePosn(d.Posn),
						End:      parsePosn(d.End),
						Message:  d.Message,
						Fixes:    d.SuggestedFixes,
					}
					for _, r := range d.Related {
						f.Related = append(f.Related, Related{parsePosn(r.Posn), parsePosn(r.End), r.Message})
					}
					findings = append(findings, f)
				}
			}
		}
	}
	sortFindings(findings)
	sort.Slice(errs, func(i, j int) bool {
		if errs[i].Package != errs[j].Package {
			return errs[i].Package < errs[j].Package
		}
		return errs[i].Check < errs[j].Check
	})
	return findings, errs, nil
}

func sortFindings(fs []*Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		return a.Message < b.Message
	})
}

// jsonTree renders findings in go/analysis's JSON shape, as one tree.
func jsonTree(findings []*Finding) map[string]map[string][]jsonDiagnostic {
	tree := make(map[string]map[string][]jsonDiagnostic)
	for _, f := range findings {
		m := tree[f.Package]
		if m == nil {
			m = make(map[string][]jsonDiagnostic)
			tree[f.Package] = m
		}
		d := jsonDiagnostic{
			Category:       f.Category,
			Posn:           f.Pos.String(),
			End:            f.End.String(),
			Message:        f.Message,
			SuggestedFixes: f.Fixes,
		}
		for _, r := range f.Related {
			d.Related = append(d.Related, struct {
				Posn    string `json:"posn"`
				End     string `json:"end"`
				Message string `json:"message"`
			}{r.Pos.String(), r.End.String(), r.Message})
		}
		m[f.Check] = append(m[f.Check], d)
	}
	return tree
}
