package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxSweepRuns bounds the number of runs one sweep expands to.
const MaxSweepRuns = 100000

// DefaultSweepRelTolerance is the fraction of a run's first measured
// consensus error that "rounds to tolerance" is measured against when
// neither sweep.tolerance nor metrics.tolerance is set. A thousand-fold
// reduction, not a millionfold one: with stochastic gradients the
// consensus error settles on a noise floor, commonly 1e-4 to 1e-5 of its
// first value, which a finer default would never reach.
const DefaultSweepRelTolerance = 1e-3

// Sweep is the optional top-level sweep block: a grid of values for
// scenario keys, each grid point run with several seeds by consim sweep.
// consim run ignores the block and runs the scenario as written once.
//
//	sweep:
//	  grid:                  # cartesian product of dotted keys -> values
//	    graph.p: [1, 0.5, 0.1]
//	  seeds: 5               # seeds seed, seed+1, ..., seed+4 per point
//	  parallel: 0            # concurrent runs; 0 = number of CPUs
//	  tolerance: 1e-4        # "rounds to tolerance" threshold; 0 = default
type Sweep struct {
	// Grid lists the swept keys in file order, each with its values.
	Grid Grid `yaml:"grid"`
	// Seeds is how many seeds each grid point runs with, >= 1: seed,
	// seed+1, ..., seed+Seeds-1 (seed after the point's assignments).
	Seeds int `yaml:"seeds"`
	// Parallel is how many runs go at once; 0 means the number of CPUs.
	Parallel int `yaml:"parallel"`
	// Tolerance is the consensus error that "rounds to tolerance" of the
	// sweep tables counts up to, without stopping the runs. 0 means
	// metrics.tolerance when that is set (the runs then stop there), else
	// DefaultSweepRelTolerance times each run's consensus error at round 0
	// (at its peak when it is 0 at round 0, the zero start).
	Tolerance float64 `yaml:"tolerance"`
}

// Grid is the swept keys and their values, in the order written. It is
// written in YAML as a mapping from dotted key to a sequence of values.
type Grid []Axis

// Axis is one swept key.
type Axis struct {
	// Key is a dotted scenario key as for Set, e.g. "graph.p".
	Key string
	// Values are the key's values as YAML text in flow style, e.g. "0.5"
	// or "[-1, 1]"; each is applied as Set(Key + "=" + value).
	Values []string
}

// Label is one assignment of a grid point.
type Label struct {
	Key, Value string
}

// SweepPoint is one run of a sweep.
type SweepPoint struct {
	// Point indexes the grid point: the cartesian product in written
	// order, the first key varying slowest.
	Point int
	// Replica is k in 0..Seeds-1; the run's seed is the point's seed + k.
	Replica int
	// Labels are the point's assignments in grid order.
	Labels []Label
	// Scenario is the resolved and validated scenario of the run, without
	// a sweep block.
	Scenario *Scenario
}

// Expand resolves the sweep block of s into one scenario per (grid point,
// seed), grid points in the cartesian order of Grid with seeds innermost.
// Each point applies its assignments with Set over a copy of s and is
// validated; errors point at the file line of the grid value responsible.
// A scenario without a sweep block is an error.
func (s *Scenario) Expand() ([]SweepPoint, error) {
	if s.Sweep == nil {
		return nil, ErrorList{{Pos: Pos{File: s.src.file}, Key: "sweep",
			Msg: "missing: a sweep needs a sweep block with a grid, e.g. sweep: {grid: {graph.p: [1, 0.5]}, seeds: 3}"}}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	sw := s.Sweep
	points := 1
	for _, ax := range sw.Grid {
		points *= len(ax.Values)
		if points*sw.Seeds > MaxSweepRuns {
			return nil, ErrorList{{Pos: s.posOf("sweep.grid"), Key: "sweep.grid",
				Msg: fmt.Sprintf("expands to more than %d runs", MaxSweepRuns)}}
		}
	}
	var (
		out  []SweepPoint
		errs errorsCollector
		seen = make(map[string]bool)
	)
	idx := make([]int, len(sw.Grid))
	for p := 0; p < points; p++ {
		c := s.withoutSweep()
		labels := make([]Label, len(sw.Grid))
		for a, ax := range sw.Grid {
			val := ax.Values[idx[a]]
			labels[a] = Label{Key: ax.Key, Value: val}
			if err := c.Set(ax.Key + "=" + val); err != nil {
				// Validate has applied every value once; keep the error anyway.
				s.addAt(&errs, s.posOf(valueKey(ax.Key, idx[a])), "sweep.grid."+ax.Key, err)
				continue
			}
			c.src.pos[ax.Key] = s.posOf(valueKey(ax.Key, idx[a]))
		}
		if err := c.Validate(); err != nil {
			for _, e := range asList(err) {
				if msg := e.Error(); !seen[msg] {
					seen[msg] = true
					errs.list = append(errs.list, e)
				}
			}
		}
		for k := 0; k < sw.Seeds; k++ {
			r := *c
			r.src.pos = maps.Clone(c.src.pos)
			r.Seed = c.Seed + uint64(k)
			out = append(out, SweepPoint{Point: p, Replica: k, Labels: labels, Scenario: &r})
		}
		// Advance the odometer, last key fastest.
		for a := len(idx) - 1; a >= 0; a-- {
			if idx[a]++; idx[a] < len(sw.Grid[a].Values) {
				break
			}
			idx[a] = 0
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// withoutSweep returns a copy of s without its sweep block that Set may
// change without touching s.
func (s *Scenario) withoutSweep() *Scenario {
	c := *s
	c.Sweep = nil
	c.src.pos = maps.Clone(s.src.pos)
	if c.src.pos == nil {
		c.src.pos = make(map[string]Pos)
	}
	return &c
}

// sweep validates the sweep block: a non-empty grid of known keys with
// non-empty value lists, each value accepted by Set, seeds >= 1,
// parallel >= 0 and tolerance >= 0. Ranges of the swept values are
// checked per grid point by Expand.
func (v *validator) sweep() {
	sw := v.s.Sweep
	if sw == nil {
		return
	}
	if len(sw.Grid) == 0 {
		v.fail("sweep.grid", "must map at least one key to a list of values, e.g. graph.p: [1, 0.5]")
	}
	v.atLeast("sweep.seeds", sw.Seeds, 1)
	v.atLeast("sweep.parallel", sw.Parallel, 0)
	v.nonNegative("sweep.tolerance", sw.Tolerance)
	for _, ax := range sw.Grid {
		key := "sweep.grid." + ax.Key
		if ax.Key == "sweep" || strings.HasPrefix(ax.Key, "sweep.") {
			v.fail(key, "a sweep cannot vary its own sweep block")
			continue
		}
		if _, err := v.s.fieldAt(ax.Key); err != nil {
			v.s.addAt(&v.errs, v.at(key), key, err)
			continue
		}
		if len(ax.Values) == 0 {
			v.fail(key, "empty list: give at least one value")
			continue
		}
		for i, val := range ax.Values {
			if err := v.s.withoutSweep().Set(ax.Key + "=" + val); err != nil {
				v.s.addAt(&v.errs, v.s.posOf(valueKey(ax.Key, i)), key, err)
			}
		}
	}
}

// addAt re-places the errors of a Set (positioned at "--set") at p, the
// grid entry they came from, under key (or their own key when empty).
func (s *Scenario) addAt(c *errorsCollector, p Pos, key string, err error) {
	for _, e := range asList(err) {
		k := key
		if k == "" {
			k = e.Key
		}
		c.list = append(c.list, &Error{Pos: p, Key: k, Msg: e.Msg, Err: e.Err})
	}
}

// posOf is where key was written, or else its nearest written parent.
func (s *Scenario) posOf(key string) Pos {
	v := validator{s: s}
	return v.at(key)
}

// valueKey is the position key of the i-th value of a swept key.
func valueKey(key string, i int) string {
	return fmt.Sprintf("sweep.grid.%s[%d]", key, i)
}

// asList flattens an error of this package into its *Error items.
func asList(err error) ErrorList {
	switch e := err.(type) {
	case ErrorList:
		return e
	case *Error:
		return ErrorList{e}
	}
	return ErrorList{{Msg: err.Error(), Err: err}}
}

// yamlSelfDecoder is a schema type that decodes its own YAML node; the
// decoder hands such values their node instead of walking them.
type yamlSelfDecoder interface {
	decodeYAML(d *decoder, n *yaml.Node, key string)
}

var yamlSelfDecoderType = reflect.TypeFor[yamlSelfDecoder]()

// decodeYAML reads a sweep block over its defaults (seeds: 1).
func (sw *Sweep) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*sw = Sweep{Seeds: 1}
	d.section(n, reflect.ValueOf(sw).Elem(), key)
}

// decodeYAML reads a mapping from dotted key to a sequence of values,
// recording the position of each key and value.
func (g *Grid) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*g = nil
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.at(n), key, "expected a mapping from dotted key to a list of values, got %s", describe(n))
		return
	}
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		for vn.Kind == yaml.AliasNode {
			vn = vn.Alias
		}
		if kn.Kind != yaml.ScalarNode || kn.Value == "" {
			d.errs.add(d.at(kn), key, "keys must be dotted scenario keys, got %s", describe(kn))
			continue
		}
		name := kn.Value
		akey := joinKey(key, name)
		if line, dup := seen[name]; dup {
			d.errs.add(d.at(kn), akey, "repeated key (first set at line %d)", line)
			continue
		}
		seen[name] = kn.Line
		d.pos[akey] = d.at(kn)
		if vn.Kind != yaml.SequenceNode {
			d.errs.add(d.at(vn), akey, "expected a list of values, e.g. [1, 0.5], got %s", describe(vn))
			continue
		}
		ax := Axis{Key: name, Values: []string{}}
		for j, en := range vn.Content {
			text, err := flowText(en)
			if err != nil {
				d.errs.add(d.at(en), akey, "value %d: %v", j+1, err)
				continue
			}
			d.pos[valueKey(name, j)] = d.at(en)
			ax.Values = append(ax.Values, text)
		}
		*g = append(*g, ax)
	}
}

// flowText renders a YAML node as one line of flow-style YAML.
func flowText(n *yaml.Node) (string, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	c := flowCopy(n)
	out, err := yaml.Marshal(c)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// flowCopy copies a node tree, setting flow style on its collections and
// dropping comments and positions.
func flowCopy(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		c.Style |= yaml.FlowStyle
	}
	for _, ch := range n.Content {
		c.Content = append(c.Content, flowCopy(ch))
	}
	return c
}

// MarshalYAML writes the grid as a mapping from key to a flow sequence.
func (g Grid) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, ax := range g {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, v := range ax.Values {
			n, err := parseValue(v)
			if err != nil {
				return nil, fmt.Errorf("sweep.grid.%s: value %q: %w", ax.Key, v, err)
			}
			seq.Content = append(seq.Content, flowCopy(n))
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: ax.Key}, seq)
	}
	return m, nil
}
