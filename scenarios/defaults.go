package scenarios

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
)

// Default returns a scenario holding every default value. It is the one
// place defaults are defined: Parse decodes a file over it, and
// DefaultsDoc renders it. The required keys (see DefaultsDoc) are left
// zero and Validate reports them when a file leaves them out.
func Default() *Scenario {
	return &Scenario{
		Seed: 1,
		Graph: Graph{
			P: 1,
		},
		Edges: Edges{
			Model:    EdgeModelBernoulli,
			SameDraw: false,
		},
		Problem: Problem{
			// Every run starts from x_0 = z_0 = 0 unless the file asks
			// for a random spread (problem.init: {kind: random, scale: s}):
			// a measure's fall is then counted from a start that holds no
			// disagreement of its own making.
			Init: Init{Kind: InitZero, Scale: 1},
		},
		Metrics: Metrics{
			Every:     10,
			Tolerance: 0,
		},
		Runtime: Runtime{
			Transport:     TransportNATS,
			PhaseDeadline: Duration(5 * time.Second),
			AgentTimeout:  Duration(30 * time.Second),
			Timeout:       Duration(10 * time.Minute),
		},
		Faults: faultsDefault(),
		Async:  asyncDefault(),
		Output: Output{
			Dir: "results",
		},
	}
}

// keyDoc documents one scenario key. def, when set, replaces the value
// rendered from Default (for required keys and keys whose default depends
// on other keys).
type keyDoc struct {
	def  string
	text string
}

// keyDocs documents every key of the schema; a test keeps it complete.
var keyDocs = map[string]keyDoc{
	"name":   {"file name", "run label: letters, digits, '-' and '_'"},
	"seed":   {"", "run seed of all common randomness (uint64)"},
	"agents": {"required", "number of agents N >= 1"},

	"graph.topology": {"required", "one of " + strings.Join(Topologies(), "|")},
	"graph.rows":     {"-", "grid/torus rows; rows*cols = agents (torus: >= 3)"},
	"graph.cols":     {"-", "grid/torus columns (torus: >= 3)"},
	"graph.q":        {"-", "erdos_renyi pair probability, in (0, 1]; required there. digraph (required, (0, 1]) and directed_sequence ([0, 1], default 0): probability of each arc beyond a random Hamiltonian cycle"},
	"graph.k":        {"-", "k_out: out-neighbours each agent picks at random, 1 <= k <= agents-1; required there"},
	"graph.period":   {"-", "directed_sequence: number P of digraphs the arcs are split over, round t using digraph t mod P; >= 1, required there"},
	"graph.radius":   {"-", "geometric connection radius in the unit square, > 0; required there"},
	"graph.file":     {"-", "edge list path, relative to the scenario file; required for topology file"},
	"graph.p":        {"1", "edge presence probability p_ij (arc i->j for a directed topology, independent of j->i), in (0, 1]; exclusive with p_range"},
	"graph.p_range":  {"-", "[lo, hi]: each p_ij uniform in [lo, hi], 0 < lo <= hi <= 1 (p_ij and p_ji drawn apart on a directed topology)"},

	"edges.model":                  {"", "edge process: " + strings.Join(EdgeModels(), "|")},
	"edges.same_draw":              {"", "use one draw for zeta1 and zeta2 (not the analysed algorithm)"},
	"edges.gilbert_elliott.p_gb":   {"-", "gilbert_elliott: per-round good -> bad probability in [0, 1]; required there"},
	"edges.gilbert_elliott.p_bg":   {"-", "gilbert_elliott: per-round bad -> good probability in (0, 1], mean burst 1/p_bg; required there"},
	"edges.gilbert_elliott.p_good": {"p_ij", "gilbert_elliott: presence probability in the good state, in (0, 1]"},
	"edges.gilbert_elliott.p_bad":  {"0", "gilbert_elliott: presence probability in the bad state, in [0, 1]; E[W] uses pi_good p_good + pi_bad p_bad"},
	"edges.cuts":                   {"[]", "[{edges: [[i,j],...], from, to}]: edges absent in rounds [from, to); no to = never heals"},
	"edges.partitions":             {"[]", "[{groups: [[ids],...], from, to}]: edges between groups absent in [from, to); unlisted agents form one group"},
	"edges.replay":                 {"-", "edge recording (Setup.RecordEdges) replacing the draws, relative to the scenario file"},

	"problem.kind":       {"required", "a registered problem kind (below, and `consim list`)"},
	"problem.init.kind":  {"", "x_0 = z_0 of every agent: zero (x_0 = 0, projected onto X) or random (i.i.d. N(0, scale^2) entries from the run seed, projected onto X); " + strings.Join(InitKinds(), "|")},
	"problem.init.scale": {"", "random only: standard deviation of x_0's entries, >= 0"},

	"algorithm.name": {"required", "a registered algorithm (below, and `consim list`)"},

	"rounds": {"required", "T, number of rounds, >= 1"},

	"metrics.every":     {"", "k: agents report every k rounds, >= 1"},
	"metrics.tolerance": {"", "stop when consensus error < tolerance; 0 = off"},

	"runtime.transport":      {"", strings.Join(Transports(), "|")},
	"runtime.nats_url":       {"-", "external NATS server URL (nats:// or tls://); not with chan"},
	"runtime.phase_deadline": {"", "wait per phase before a missing message is a dropout, > 0"},
	"runtime.agent_timeout":  {"", "silence before an agent is declared lost, > 0"},
	"runtime.timeout":        {"", "bound on the whole run, > 0"},
	"runtime.workers":        {"", "oracle workers W >= 0 for algorithms that fan evaluations out (a NATS queue group on the bus); 0 = each agent evaluates its own"},
	"runtime.memory_limit":   {"physical RAM", "refuse a run whose memory estimate is larger: bytes, or a number with B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 8GiB)"},

	"faults.loss.rate":         {"", "probability that a data frame i -> j is lost, in [0, 1], per direction independently"},
	"faults.loss.edges":        {"[]", "directed pairs [[i,j],...] the loss applies to; empty = all"},
	"faults.loss.symmetric":    {"", "lose both directions of an edge together (one draw per edge)"},
	"faults.delay.dist":        {"", "per-message delay: " + strings.Join(Dists(), "|")},
	"faults.delay.mean":        {"", "fixed delay, or mean of the exponential"},
	"faults.delay.min":         {"", "uniform delay lower bound"},
	"faults.delay.max":         {"", "uniform delay upper bound"},
	"faults.staleness":         {"", "S: replace a missing message by the latest from rounds t-S..t-1; 0 = off"},
	"faults.crashes":           {"[]", "[{agent, at, restart_after (0 = never), state: kept|lost}]: agent stops at round at"},
	"faults.on_departure":      {"", "an agent crashed for good: " + strings.Join(Departures(), "|") + " the run"},
	"faults.stragglers.dist":   {"", "per-round compute time of slowed agents: " + strings.Join(Dists(), "|")},
	"faults.stragglers.mean":   {"", "fixed compute time, or mean of the exponential"},
	"faults.stragglers.min":    {"", "uniform compute time lower bound"},
	"faults.stragglers.max":    {"", "uniform compute time upper bound"},
	"faults.stragglers.agents": {"[]", "slowed agents [i, ...]; empty = all"},

	"async.mode":                {"", "run without rounds (docs/async.md): " + strings.Join(AsyncModes(), "|") + "; simulated = event engine in simulated time, realtime = a goroutine per agent on runtime.transport"},
	"async.horizon":             {"required", "simulated time the run lasts, > 0 (replaces rounds)"},
	"async.every":               {"", "period of the measures in simulated time, > 0 (replaces metrics.every)"},
	"async.clock.dist":          {"", "agent clock intervals (Poisson ticks: exponential; or a compute time per tick): " + strings.Join(Dists(), "|")[len(DistNone)+1:]},
	"async.clock.mean":          {"", "fixed interval, or mean of the exponential, > 0"},
	"async.clock.min":           {"", "uniform interval lower bound"},
	"async.clock.max":           {"", "uniform interval upper bound"},
	"async.stragglers.agents":   {"[]", "agents whose clock intervals are slowdown times longer"},
	"async.stragglers.slowdown": {"", "factor of the stragglers' intervals, >= 1"},
	"async.latency.dist":        {"", "message latency: " + strings.Join(Dists(), "|")},
	"async.latency.mean":        {"", "fixed latency, or mean of the exponential, >= 0"},
	"async.latency.min":         {"", "uniform latency lower bound"},
	"async.latency.max":         {"", "uniform latency upper bound"},
	"async.slot":                {"", "simulated time per round of the edge process (a message sent at time s draws its link in round floor(s/slot)), > 0"},
	"async.time_scale":          {"", "realtime: wall time of one simulated unit"},

	"output.dir": {"", "parent directory of results/<run-id>/"},

	"sweep": {"-", "consim sweep only: {grid: {dotted.key: [values]}, seeds: 1, parallel: 0 (= CPUs), tolerance: 0 (= metrics.tolerance, else 1e-3 of the consensus error at round 0, or at its peak after a zero start)}; consim run ignores it"},
}

// DefaultsDoc renders every scenario key with its default and allowed
// values, one per line, for docs/scenarios.md and --help.
func DefaultsDoc() string {
	def := reflect.ValueOf(Default()).Elem()
	keys := leafKeys(def.Type(), "")
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	reg := catalog.Default()
	type line struct{ key, def, text string }
	var lines []line
	for _, k := range keys {
		doc := keyDocs[k]
		d := doc.def
		if d == "" {
			d = formatValue(valueAt(def, k))
		}
		lines = append(lines, line{k, d, doc.text})
		switch k {
		case "problem.init.scale":
			for _, rl := range registeredDocs(reg, &Problem{}, reg.Problems()) {
				lines = append(lines, line(rl))
			}
		case "algorithm.name":
			for _, rl := range registeredDocs(reg, &Algorithm{}, reg.Algorithms()) {
				lines = append(lines, line(rl))
			}
		}
	}
	for _, l := range lines {
		width = max(width, len(l.key))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-13s  %s\n", width, "key", "default", "meaning")
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s  %-13s  %s\n", width, l.key, l.def, l.text)
	}
	return b.String()
}

// registeredDocs documents the keys of the registered entries names of a
// section (the algorithms or the problem kinds): one line per key,
// default and text, shared by the entries that agree on all three. The
// text is the field's doc tag, the default its value in the entry's New
// (or the field's default tag).
func registeredDocs(reg *registry.Registry, r registered, names []string) []struct{ key, def, text string } {
	type group struct {
		key, def, text string
		names          []string
	}
	var groups []*group
	index := make(map[[3]string]*group)
	for _, name := range names {
		p, _, _ := lookup(r, reg, name)
		v := reflect.ValueOf(p).Elem()
		for _, k := range leafKeys(v.Type(), "") {
			f := structFieldAt(v.Type(), k)
			d := f.Tag.Get("default")
			if d == "" {
				d = formatValue(valueAt(v, k))
			}
			id := [3]string{k, d, f.Tag.Get("doc")}
			g, ok := index[id]
			if !ok {
				g = &group{key: joinKey(r.section(), k), def: d, text: id[2]}
				index[id] = g
				groups = append(groups, g)
			}
			g.names = append(g.names, name)
		}
	}
	out := make([]struct{ key, def, text string }, len(groups))
	for i, g := range groups {
		out[i].key, out[i].def = g.key, g.def
		out[i].text = strings.Join(g.names, ", ") + ": " + g.text
	}
	return out
}

// structFieldAt returns the struct field of schema type t at dotted key.
func structFieldAt(t reflect.Type, key string) reflect.StructField {
	var sf reflect.StructField
	for _, name := range strings.Split(key, ".") {
		f, _ := lookupField(t, name)
		sf = t.FieldByIndex(f.index)
		t = sf.Type
	}
	return sf
}

// valueAt returns the field of the schema struct v at dotted key.
func valueAt(v reflect.Value, key string) reflect.Value {
	for _, name := range strings.Split(key, ".") {
		f, _ := lookupField(v.Type(), name)
		v = v.FieldByIndex(f.index)
	}
	return v
}

// formatValue writes a default the way YAML would.
func formatValue(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case Duration:
		return x.String()
	case Interval:
		return formatInterval(x)
	case *float64:
		if x == nil {
			return "-"
		}
		return registry.Num(*x)
	case *int:
		if x == nil {
			return "-"
		}
		return strconv.Itoa(*x)
	case float64:
		return registry.Num(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	return fmt.Sprint(v.Interface())
}
