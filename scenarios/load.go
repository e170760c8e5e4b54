package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
)

// Load reads and parses the scenario file at path with the shipped
// algorithms and problems (catalog.Default). See Parse.
func Load(path string) (*Scenario, error) { return LoadFrom(nil, path) }

// LoadFrom reads and parses the scenario file at path with the
// algorithms and problems of reg (nil: catalog.Default). See ParseWith.
func LoadFrom(reg *registry.Registry, path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Pos: Pos{File: path}, Msg: "cannot read scenario: " + err.Error(), Err: err}
	}
	return ParseWith(reg, data, path)
}

// LoadWith loads the scenario at path with the shipped algorithms and
// problems, applies the overrides in order (each "key.path=value", as for
// Set) and validates the result.
func LoadWith(path string, overrides ...string) (*Scenario, error) {
	return LoadFromWith(nil, path, overrides...)
}

// LoadFromWith is LoadWith with the algorithms and problems of reg (nil:
// catalog.Default).
func LoadFromWith(reg *registry.Registry, path string, overrides ...string) (*Scenario, error) {
	return loadFromWith(reg, path, 0, overrides)
}

// LoadProcessWith is LoadWith for a process that runs only some of the
// run's agents, agents of them (consim node: 1): Validate checks the
// memory estimate of those agents (Scenario.ProcessAgents), not the
// whole run's.
func LoadProcessWith(path string, agents int, overrides ...string) (*Scenario, error) {
	return loadFromWith(nil, path, agents, overrides)
}

// loadFromWith loads path with reg, sets ProcessAgents to agents, applies
// the overrides and validates.
func loadFromWith(reg *registry.Registry, path string, agents int, overrides []string) (*Scenario, error) {
	s, err := LoadFrom(reg, path)
	if err != nil {
		return nil, err
	}
	for _, o := range overrides {
		if err := s.Set(o); err != nil {
			return nil, err
		}
	}
	s.ProcessAgents = agents
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Parse decodes a scenario from YAML over the defaults of Default.
// filename names the data in errors and anchors a relative graph.file.
//
// Parse checks the shape of the input: YAML syntax, unknown or repeated
// keys at any depth, and the type of every value (an integer key rejects
// 2.5 and "3", a duration rejects 5). It reports all such problems at
// once as an ErrorList; a syntax error is reported alone. It does not
// check ranges or enums: call Validate (after any Set) for those.
func Parse(data []byte, filename string) (*Scenario, error) { return ParseWith(nil, data, filename) }

// ParseWith is Parse with the algorithms and problems of reg; nil means
// the shipped ones (catalog.Default). The scenario keeps reg for Set,
// Validate and Build.
func ParseWith(reg *registry.Registry, data []byte, filename string) (*Scenario, error) {
	if reg == nil {
		reg = catalog.Default()
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, ErrorList{syntaxError(filename, err)}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, ErrorList{{Pos: Pos{File: filename}, Msg: "empty scenario (expected a mapping with keys " +
			strings.Join(keyNames(reflect.TypeFor[Scenario]()), ", ") + ")"}}
	}
	if hasSecondDocument(data) {
		return nil, ErrorList{{Pos: Pos{File: filename}, Msg: "a scenario file holds exactly one YAML document"}}
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: doc.Line, Column: doc.Column},
			Msg: "top level must be a mapping of keys " + strings.Join(keyNames(reflect.TypeFor[Scenario]()), ", ")}}
	}
	s := Default()
	s.reg = reg
	d := &decoder{file: filename, lines: true, pos: make(map[string]Pos), reg: reg, dir: filepath.Dir(filename)}
	d.value(doc, reflect.ValueOf(s).Elem(), "")
	s.src = source{file: filename, dir: filepath.Dir(filename), pos: d.pos}
	if _, ok := d.pos["name"]; !ok {
		base := filepath.Base(filename)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	s.settleP(d.pos, &d.errs)
	if _, ok := d.pos["graph.file"]; ok {
		s.Graph.File = s.resolvePath(s.Graph.File)
	}
	if _, ok := d.pos["edges.replay"]; ok {
		s.Edges.Replay = s.resolvePath(s.Edges.Replay)
	}
	if err := d.errs.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// hasSecondDocument reports whether data holds more than one YAML document.
func hasSecondDocument(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if dec.Decode(&n) != nil {
		return false
	}
	return dec.Decode(&n) == nil
}

// settleP makes graph.p and graph.p_range exclusive. written holds the
// keys of one Parse or Set: setting p_range clears p to zero, setting p
// clears p_range, and setting both at once is an error. Clearing p_range
// (null) restores the default p.
func (s *Scenario) settleP(written map[string]Pos, errs *errorsCollector) {
	pPos, hasP := written["graph.p"]
	rPos, hasR := written["graph.p_range"]
	switch {
	case hasP && hasR:
		errs.add(rPos, "graph.p_range", "give either p or p_range, not both (p is set at %s)", pPos)
	case hasR && s.Graph.PRange != nil:
		s.Graph.P = 0
		delete(s.src.pos, "graph.p")
	case hasR && s.Graph.P == 0:
		s.Graph.P = Default().Graph.P
	case hasP:
		s.Graph.PRange = nil
		delete(s.src.pos, "graph.p_range")
	}
}

// resolvePath anchors a relative path at the scenario file's directory.
func (s *Scenario) resolvePath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	p = filepath.Join(s.src.dir, p)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
