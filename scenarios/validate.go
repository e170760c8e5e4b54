package scenarios

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/consim/consim/consensus/registry"
)

// Validate checks every range, enum and cross-field rule of the schema and
// returns all violations as an ErrorList, each at the line of the key's
// value (or of its nearest written parent when the key was left out). It
// does not build the graph, so connectivity of the expected graph is left
// to the caller; it does check that a graph.file exists. An otherwise
// valid scenario whose memory estimate (EstimateMemory) exceeds its
// MemoryLimit is refused too, before anything is allocated for it.
func (s *Scenario) Validate() error {
	v := &validator{s: s}
	v.top()
	v.graph()
	v.directed()
	v.edges()
	v.problem()
	v.algorithm()
	v.metrics()
	v.runtime()
	v.faults()
	v.async()
	v.sweep()
	if len(v.errs.list) == 0 {
		v.memory()
	}
	// Report in file order, overrides last.
	file := s.src.file
	sort.SliceStable(v.errs.list, func(i, j int) bool {
		a, b := v.errs.list[i], v.errs.list[j]
		if (a.File == file) != (b.File == file) {
			return a.File == file
		}
		return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
	})
	return v.errs.err()
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func (v *validator) top() {
	s := v.s
	switch {
	case s.Name == "":
		v.fail("name", "must not be empty (letters, digits, '-' and '_')")
	case !nameRE.MatchString(s.Name):
		v.fail("name", "%q may hold only letters, digits, '-' and '_'", s.Name)
	}
	if v.required("agents", s.Agents == 0, "an integer >= 1") {
		v.atLeast("agents", s.Agents, 1)
	}
	if !s.Async.On() && v.required("rounds", s.Rounds == 0, "an integer >= 1") {
		v.atLeast("rounds", s.Rounds, 1)
	}
	if s.Output.Dir == "" {
		v.fail("output.dir", "must not be empty")
	}
}

func (v *validator) graph() {
	g := v.s.Graph
	if !v.required("graph.topology", g.Topology == "", "one of "+strings.Join(Topologies(), ", ")) ||
		!v.oneOf("graph.topology", g.Topology, Topologies()) {
		return
	}
	t := g.Topology
	grid := t == TopologyGrid || t == TopologyTorus
	v.onlyWith("graph.rows", g.Rows != 0, grid, "grid or torus")
	v.onlyWith("graph.cols", g.Cols != 0, grid, "grid or torus")
	v.onlyWith("graph.q", g.Q != 0, t == TopologyErdosRenyi || t == TopologyDigraph || t == TopologyDirectedSequence,
		"erdos_renyi, digraph or directed_sequence")
	v.onlyWith("graph.radius", g.Radius != 0, t == TopologyGeometric, TopologyGeometric)
	v.onlyWith("graph.file", g.File != "", t == TopologyFile, TopologyFile)
	switch t {
	case TopologyGrid, TopologyTorus:
		least := 1
		if t == TopologyTorus {
			least = 3 // a smaller torus wraps onto its own grid edges
		}
		okR := v.required("graph.rows", g.Rows == 0, fmt.Sprintf("for topology %s, an integer >= %d", t, least)) &&
			v.atLeast("graph.rows", g.Rows, least)
		okC := v.required("graph.cols", g.Cols == 0, fmt.Sprintf("for topology %s, an integer >= %d", t, least)) &&
			v.atLeast("graph.cols", g.Cols, least)
		if okR && okC && v.s.Agents > 0 && g.Rows*g.Cols != v.s.Agents {
			v.fail("graph.rows", "rows*cols = %d*%d = %d must equal agents = %d", g.Rows, g.Cols, g.Rows*g.Cols, v.s.Agents)
		}
	case TopologyErdosRenyi:
		if v.required("graph.q", g.Q == 0, "for topology erdos_renyi, a number in (0, 1]") {
			v.inUnit("graph.q", g.Q)
		}
	case TopologyGeometric:
		if v.required("graph.radius", g.Radius == 0, "for topology geometric, a number > 0") {
			v.positive("graph.radius", g.Radius)
		}
	case TopologyFile:
		if v.required("graph.file", g.File == "", "for topology file, the path of an edge list") {
			if _, err := os.Stat(g.File); err != nil {
				v.fail("graph.file", "cannot read edge list: %v", err)
			}
		}
	}
	if r := g.PRange; r != nil {
		if !(r.Lo() > 0 && r.Lo() <= r.Hi() && r.Hi() <= 1) {
			v.fail("graph.p_range", "%s: need 0 < lo <= hi <= 1", formatInterval(*r))
		}
	} else {
		v.inUnit("graph.p", g.P)
	}
}

func (v *validator) edges() {
	v.oneOf("edges.model", v.s.Edges.Model, EdgeModels())
	v.gilbertElliott()
	v.schedule()
	v.replay()
}

func (v *validator) problem() {
	p := &v.s.Problem
	v.registeredBlock(p, "a problem kind")
	v.oneOf("problem.init.kind", p.Init.Kind, InitKinds())
	v.nonNegative("problem.init.scale", p.Init.Scale)
}

func (v *validator) algorithm() {
	a := &v.s.Algorithm
	v.registeredBlock(a, "an algorithm")
	reg := v.s.registry()
	e, ok := reg.Algorithm(a.Name)
	if !ok {
		return
	}
	if !e.SameDraw && v.s.Edges.SameDraw {
		v.fail("edges.same_draw", "does not apply to algorithm %s, which draws the graph once per round", a.Name)
	}
	if _, ok := reg.Problem(v.s.Problem.Kind); ok && v.s.Agents > 0 {
		v.needs(reg.Check(a.Name, v.s.Problem.Kind, v.s.Agents))
	}
}

// needs places the error of registry.Check: a problem that lacks what the
// algorithm needs at algorithm.name, a bad number of agents at agents.
func (v *validator) needs(err error) {
	var fes registry.FieldErrors
	switch {
	case err == nil:
	case errors.As(err, &fes):
		for _, fe := range fes {
			v.fail(fe.Key, "%s", fe.Msg)
		}
	default:
		v.fail("algorithm.name", "%v", err)
	}
}

// registeredBlock checks that r selects a registered entry and that the
// entry's own keys validate.
func (v *validator) registeredBlock(r registered, what string) {
	selKey, sel := r.selector()
	key := joinKey(r.section(), selKey)
	_, names, ok := lookup(r, v.s.registry(), *sel)
	if !v.required(key, *sel == "", what+": one of "+strings.Join(names, ", ")) {
		return
	}
	if !ok {
		v.fail(key, "%s", unknownValueMsg(*sel, names))
		return
	}
	set := *r.settings()
	if set == nil || *r.settingsFor() != *sel {
		v.fail(key, "the keys of %s %s were not decoded (internal error)", r.section(), *sel)
		return
	}
	if err := set.Validate(); err != nil {
		var fes registry.FieldErrors
		if !errors.As(err, &fes) {
			v.fail(r.section(), "%v", err)
			return
		}
		for _, fe := range fes {
			v.fail(v.s.blockKey(r.section(), fe.Key), "%s", fe.Msg)
		}
	}
}

func (v *validator) metrics() {
	m := v.s.Metrics
	v.atLeast("metrics.every", m.Every, 1)
	v.nonNegative("metrics.tolerance", m.Tolerance)
}

func (v *validator) runtime() {
	if v.s.Runtime.Workers < 0 {
		v.fail("runtime.workers", "must be an integer >= 0, got %d", v.s.Runtime.Workers)
	}
	r := v.s.Runtime
	if _, written := v.s.src.pos["runtime.memory_limit"]; written && r.MemoryLimit <= 0 {
		v.fail("runtime.memory_limit", "must be a size > 0 such as 8GiB, got %d", int64(r.MemoryLimit))
	}
	v.oneOf("runtime.transport", r.Transport, Transports())
	if r.Transport == TransportStepped && v.s.Faults.Active() {
		v.fail("runtime.transport", "stepped runs without loss, deadlines or faults: remove the faults block or use chan, nats or nats-tcp")
	}
	if r.NATSURL != "" {
		if r.Transport == TransportChan || r.Transport == TransportStepped {
			v.fail("runtime.nats_url", "only used with transport nats or nats-tcp, not %s", r.Transport)
		}
		for _, u := range strings.Split(r.NATSURL, ",") {
			if err := checkNATSURL(strings.TrimSpace(u)); err != nil {
				v.fail("runtime.nats_url", "%v", err)
			}
		}
	}
	for _, d := range []struct {
		key string
		d   Duration
	}{
		{"runtime.phase_deadline", r.PhaseDeadline},
		{"runtime.agent_timeout", r.AgentTimeout},
		{"runtime.timeout", r.Timeout},
	} {
		if d.d <= 0 {
			v.fail(d.key, "must be a duration > 0, got %s", d.d)
		}
	}
}

// memory refuses a scenario whose memory estimate exceeds its limit
// (Scenario.CheckMemory). It runs only on an otherwise valid scenario, as
// the estimate reads the sizes that the other checks vouch for.
func (v *validator) memory() {
	key := "agents"
	if _, ok := v.s.src.pos["runtime.memory_limit"]; ok {
		key = "runtime.memory_limit"
	}
	if _, err := v.s.CheckMemory(); err != nil {
		v.fail(key, "%v", err)
	}
}

// checkNATSURL accepts nats://, tls://, ws:// and wss:// URLs with a host.
func checkNATSURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL like nats://host:4222", s)
	}
	if !slices.Contains([]string{"nats", "tls", "ws", "wss"}, u.Scheme) {
		return fmt.Errorf("%q: scheme must be nats, tls, ws or wss", s)
	}
	return nil
}

// validator collects Validate's errors, placing each at its key's line.
type validator struct {
	s    *Scenario
	errs errorsCollector
}

// at is where key was written, or else where its nearest written parent
// was (the whole file for a top-level key).
func (v *validator) at(key string) Pos {
	for k := key; ; k = parentKey(k) {
		if p, ok := v.s.src.pos[k]; ok {
			return p
		}
		if k == "" {
			return Pos{File: v.s.src.file}
		}
	}
}

func (v *validator) fail(key, format string, args ...any) {
	v.errs.add(v.at(key), key, format, args...)
}

// required reports a missing key and returns whether key is present (or
// set to a non-zero value).
func (v *validator) required(key string, zero bool, want string) bool {
	if _, written := v.s.src.pos[key]; zero && !written {
		v.fail(key, "missing (required: %s)", want)
		return false
	}
	return true
}

// onlyWith rejects a topology-specific key set for another topology.
func (v *validator) onlyWith(key string, set, applies bool, topologies string) {
	if set && !applies {
		v.fail(key, "only used with topology %s, not %s", topologies, v.s.Graph.Topology)
	}
}

func (v *validator) oneOf(key, val string, allowed []string) bool {
	if slices.Contains(allowed, val) {
		return true
	}
	hint := ""
	if c := closest(val, allowed); c != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", c)
	}
	v.fail(key, "%q is not one of %s%s", val, strings.Join(allowed, ", "), hint)
	return false
}

func (v *validator) atLeast(key string, x, lo int) bool {
	if x < lo {
		v.fail(key, "must be an integer >= %d, got %d", lo, x)
		return false
	}
	return true
}

// inUnit checks x in (0, 1].
func (v *validator) inUnit(key string, x float64) {
	if !(x > 0 && x <= 1) {
		v.fail(key, "%s is outside (0, 1]", registry.Num(x))
	}
}

func (v *validator) positive(key string, x float64) {
	if !(x > 0) || math.IsInf(x, 0) {
		v.fail(key, "must be a finite number > 0, got %s", registry.Num(x))
	}
}

func (v *validator) nonNegative(key string, x float64) {
	if !(x >= 0) || math.IsInf(x, 0) {
		v.fail(key, "must be a finite number >= 0, got %s", registry.Num(x))
	}
}

func formatInterval(iv Interval) string {
	return "[" + registry.Num(iv.Lo()) + ", " + registry.Num(iv.Hi()) + "]"
}
