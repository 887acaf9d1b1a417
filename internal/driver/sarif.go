package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

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
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
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
}

const srcRoot = "%SRCROOT%"

// sarif prints a SARIF 2.1.0 log. Paths are relative to the repository
// root (uriBaseId %SRCROOT%), as GitHub code scanning expects.
func (r *renderer) sarif(w io.Writer, findings []*Finding) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "cancelcheck",
			InformationURI: "https://github.com/cancelcheck/cancelcheck",
		}},
		OriginalURIBaseIDs: map[string]sarifArtifactLoc{
			srcRoot: {URI: fileURI(r.root) + "/"},
		},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	ruleIndex := make(map[string]int)
	for _, chk := range r.checks {
		ruleIndex[chk.Analyzer.Name] = len(run.Tool.Driver.Rules)
		level := "warning"
		doc := chk.Analyzer.Doc
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   chk.Analyzer.Name,
			Name:                 chk.Analyzer.Name,
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
	kc := newKeyer()
	occurrence := make(map[baselineKey]int)
	for _, f := range findings {
		idx, ok := ruleIndex[f.Check]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[f.Check] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
				ID: f.Check, Name: f.Check,
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
		for i, rel := range f.Related {
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID:               i + 1,
				PhysicalLocation: r.sarifPhysical(rel.Pos, rel.End),
				Message:          &sarifText{Text: rel.Message},
			})
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
	return len([]rune(line[:p.Col-1])) + 1
}

// offsetPos converts a byte offset in file to a position with a code
// point column.
func (r *renderer) offsetPos(file string, off int) Position {
	src := r.source(file)
	off = min(max(off, 0), len(src))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return Position{File: file, Line: line, Col: len([]rune(string(src[start:off]))) + 1}
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
