package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cancelcheck/cancelcheck/internal/checkdoc"
)

// SARIF 2.1.0, the subset GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	Invocations        []sarifInvocation           `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

// A sarifInvocation says whether the run analyzed everything it was asked
// to; packages that did not load or type-check are its notifications.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	Properties           map[string]any    `json:"properties,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           sarifRegion      `json:"region"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion `json:"deletedRegion"`
	InsertedContent *sarifText  `json:"insertedContent,omitempty"`
}

type sarifChange struct {
	ArtifactLocation sarifArtifactLoc   `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifFix struct {
	Description     sarifText     `json:"description"`
	ArtifactChanges []sarifChange `json:"artifactChanges"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
	Suppressions        []sarifSuppress   `json:"suppressions,omitempty"`
}

// A sarifSuppress marks a result accepted outside the source: by the
// -baseline file.
type sarifSuppress struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

const srcRoot = "%SRCROOT%"

// sarif prints a SARIF 2.1.0 log. Paths are relative to the repository
// root (uriBaseId %SRCROOT%), as GitHub code scanning expects. Findings a
// baseline accepted are results too, suppressed (kind external); packages
// that did not load or type-check are the invocation's notifications, and
// make it unsuccessful.
func (r *renderer) sarif(w io.Writer, findings []*Finding) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            "cancelcheck",
			Version:         r.version,
			SemanticVersion: semanticVersion(r.version),
			InformationURI:  "https://github.com/cancelcheck/cancelcheck",
		}},
		Invocations: []sarifInvocation{r.sarifInvocation()},
		OriginalURIBaseIDs: map[string]sarifArtifactLoc{
			srcRoot: {URI: fileURI(r.root) + "/"},
		},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	ruleIndex := make(map[string]int)
	names := make(map[string]bool)
	for _, chk := range r.checks {
		ruleIndex[chk.Analyzer.Name] = len(run.Tool.Driver.Rules)
		level := "warning"
		doc := chk.Analyzer.Doc
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   chk.Analyzer.Name,
			Name:                 ruleName(chk.Analyzer.Name, names),
			ShortDescription:     sarifText{Text: chk.Summary()},
			FullDescription:      sarifText{Text: doc},
			Help:                 sarifText{Text: doc, Markdown: helpMarkdown(chk.Summary(), doc, chk.Analyzer.URL)},
			HelpURI:              chk.Analyzer.URL,
			DefaultConfiguration: map[string]string{"level": level},
			Properties: map[string]any{
				"tags":             []string{"cancellation", "reliability"},
				"precision":        "high",
				"problem.severity": "warning",
			},
		})
	}
	// Results in source order, the baseline's among the others, so that
	// a finding's fingerprint (its key and occurrence) does not depend on
	// the baseline.
	all := findings
	suppressed := make(map[*Finding]bool, len(r.suppressed))
	if len(r.suppressed) > 0 {
		all = append(slices.Clip(findings), r.suppressed...)
		sortFindings(all)
		for _, f := range r.suppressed {
			suppressed[f] = true
		}
	}
	kc := newKeyer()
	occurrence := make(map[baselineKey]int)
	for _, f := range all {
		idx, ok := ruleIndex[f.Check]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[f.Check] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
				ID: f.Check, Name: ruleName(f.Check, names),
				ShortDescription:     sarifText{Text: f.Check},
				FullDescription:      sarifText{Text: f.Check},
				Help:                 sarifText{Text: f.Check},
				DefaultConfiguration: map[string]string{"level": "warning"},
			})
		}
		k := kc.key(f)
		n := occurrence[k]
		occurrence[k]++
		res := sarifResult{
			RuleID:    f.Check,
			RuleIndex: idx,
			Level:     "warning",
			Message:   sarifText{Text: f.Message},
			Locations: []sarifLocation{{PhysicalLocation: r.sarifPhysical(f.Pos, f.End)}},
			PartialFingerprints: map[string]string{
				"cancelcheck/v1": fingerprint(k, n),
			},
		}
		if suppressed[f] {
			res.Suppressions = []sarifSuppress{{Kind: "external", Justification: "baseline " + r.baselineFile}}
		}
		related, more := shownRelated(f)
		for i, rel := range related {
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID:               i + 1,
				PhysicalLocation: r.sarifPhysical(rel.Pos, rel.End),
				Message:          &sarifText{Text: rel.Message},
			})
		}
		if more > 0 {
			res.Message.Text += "\n" + morePlaces(more) + " (see -format=json)"
		}
		for _, fx := range f.Fixes {
			sf := sarifFix{Description: sarifText{Text: fx.Message}}
			byFile := make(map[string]int)
			for _, e := range fx.Edits {
				i, ok := byFile[e.File]
				if !ok {
					i = len(sf.ArtifactChanges)
					byFile[e.File] = i
					sf.ArtifactChanges = append(sf.ArtifactChanges, sarifChange{ArtifactLocation: r.artifact(e.File)})
				}
				start := r.offsetPos(e.File, e.Start)
				end := r.offsetPos(e.File, e.End)
				rep := sarifReplacement{DeletedRegion: sarifRegion{
					StartLine: start.Line, StartColumn: start.Col,
					EndLine: end.Line, EndColumn: end.Col,
				}}
				if e.New != "" {
					rep.InsertedContent = &sarifText{Text: e.New}
				}
				sf.ArtifactChanges[i].Replacements = append(sf.ArtifactChanges[i].Replacements, rep)
			}
			res.Fixes = append(res.Fixes, sf)
		}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// sarifInvocation reports the packages that were not analyzed.
func (r *renderer) sarifInvocation() sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: len(r.loadErrors) == 0}
	for _, e := range r.loadErrors {
		n := sarifNotification{
			Level:   "error",
			Message: sarifText{Text: fmt.Sprintf("package %s could not be loaded or type-checked, so it was not analyzed: %s", e.Package, e.Err)},
		}
		// The go command's first line names the place, relative to the
		// working directory.
		first, _, _ := strings.Cut(e.Err, "\n")
		if pos, _, ok := strings.Cut(first, ": "); ok {
			if p := parsePosn(pos); strings.HasSuffix(p.File, ".go") && p.Line > 0 {
				if !filepath.IsAbs(p.File) {
					p.File = filepath.Join(r.wd, p.File)
				}
				n.Locations = []sarifLocation{{PhysicalLocation: r.sarifPhysical(p, Position{})}}
			}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	return inv
}

// ruleNames are the SARIF rule names (PascalCase, as SARIF asks) of the
// checks; a check not listed gets its name title-cased.
var ruleNames = map[string]string{
	"detachedctx":   "DetachedContext",
	"directive":     "IneffectiveIgnoreDirective",
	"foldedtimeout": "FoldedCancellation",
	"leaseleak":     "LeakedLease",
	"orphansend":    "OrphanedSend",
	"retrycancel":   "RetryAfterCancellation",
	"swallowcancel": "SwallowedCancellation",
	"untrackedgo":   "UntrackedGoroutine",
}

// ruleName returns the SARIF rule name of check, distinct from the names
// in used (and adds it there): SARIF's rule id is the check's name, the
// rule name a PascalCase description.
func ruleName(check string, used map[string]bool) string {
	name, ok := ruleNames[check]
	if !ok {
		var b strings.Builder
		upper := true
		for _, c := range check {
			switch {
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
				if upper {
					c = unicode.ToUpper(c)
				}
				b.WriteRune(c)
				upper = false
			default:
				upper = true // a word boundary: "my-check" is MyCheck
			}
		}
		name = b.String()
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			name = "Check" + name
		}
	}
	base := name
	for i := 2; used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	used[name] = true
	return name
}

// semverRE is semver.org's regular expression for a version (after a
// leading "v"): Go module versions and pseudo-versions match it.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// semanticVersion returns the module version at the start of version (as
// Version returns it: "v1.2.3 <revision> <go version>") without its "v",
// when it is a semantic version; "" otherwise, e.g. for "(devel)".
func semanticVersion(version string) string {
	v, _, _ := strings.Cut(version, " ")
	v, ok := strings.CutPrefix(v, "v")
	if !ok || !semverRE.MatchString(v) {
		return ""
	}
	return v
}

func (r *renderer) artifact(file string) sarifArtifactLoc {
	rel, err := filepath.Rel(r.root, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return sarifArtifactLoc{URI: fileURI(file)}
	}
	return sarifArtifactLoc{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: srcRoot}
}

func (r *renderer) sarifPhysical(pos, end Position) sarifPhysical {
	reg := sarifRegion{StartLine: max(pos.Line, 1), StartColumn: r.column(pos)}
	if end.Line > 0 && end.File == pos.File {
		reg.EndLine = end.Line
		reg.EndColumn = r.column(end)
	}
	return sarifPhysical{ArtifactLocation: r.artifact(pos.File), Region: reg}
}

// column converts a byte column to a Unicode code point column.
func (r *renderer) column(p Position) int {
	if p.Col <= 0 {
		return 0
	}
	line, ok := r.line(p.File, p.Line)
	if !ok || p.Col-1 > len(line) {
		return p.Col
	}
	return utf8.RuneCountInString(line[:p.Col-1]) + 1
}

// offsetPos converts a byte offset in file to a position with a code
// point column.
func (r *renderer) offsetPos(file string, off int) Position {
	src := r.source(file)
	off = min(max(off, 0), len(src))
	line, start := r.lineOf(file, off)
	return Position{File: file, Line: line, Col: utf8.RuneCount(src[start:off]) + 1}
}

func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// helpMarkdown is a rule's help for GitHub code scanning: the summary, the
// documentation as Markdown, and a link to the check's page.
func helpMarkdown(summary, doc, url string) string {
	md := "**" + summary + "**\n\n" + checkdoc.Markdown(checkdoc.Body(doc), 3)
	if url != "" {
		md += "\n[More about this check](" + url + ")\n"
	}
	return md
}
