package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
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
			SamplesPerAgent: 100,
			Batch:           10,
			Noise:           0.1,
			Reg:             0,
			Heterogeneity:   1,
			Box:             Interval{math.Inf(-1), math.Inf(1)},
			Init:            Init{Kind: InitRandom, Scale: 1},
		},
		Algorithm: Algorithm{
			Preset:         PresetPractical,
			TauSchedule:    TauConstant,
			Safeguard:      SafeguardGlobal,
			SafeguardEvery: 10,
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
	"graph.q":        {"-", "erdos_renyi pair probability, in (0, 1]; required there"},
	"graph.radius":   {"-", "geometric connection radius in the unit square, > 0; required there"},
	"graph.file":     {"-", "edge list path, relative to the scenario file; required for topology file"},
	"graph.p":        {"1", "edge presence probability p_ij, in (0, 1]; exclusive with p_range"},
	"graph.p_range":  {"-", "[lo, hi]: each p_ij uniform in [lo, hi], 0 < lo <= hi <= 1"},

	"edges.model":                  {"", "edge process: " + strings.Join(EdgeModels(), "|")},
	"edges.same_draw":              {"", "use one draw for zeta1 and zeta2 (not the analysed algorithm)"},
	"edges.gilbert_elliott.p_gb":   {"-", "gilbert_elliott: per-round good -> bad probability in [0, 1]; required there"},
	"edges.gilbert_elliott.p_bg":   {"-", "gilbert_elliott: per-round bad -> good probability in (0, 1], mean burst 1/p_bg; required there"},
	"edges.gilbert_elliott.p_good": {"p_ij", "gilbert_elliott: presence probability in the good state, in (0, 1]"},
	"edges.gilbert_elliott.p_bad":  {"0", "gilbert_elliott: presence probability in the bad state, in [0, 1]; E[W] uses pi_good p_good + pi_bad p_bad"},
	"edges.cuts":                   {"[]", "[{edges: [[i,j],...], from, to}]: edges absent in rounds [from, to); no to = never heals"},
	"edges.partitions":             {"[]", "[{groups: [[ids],...], from, to}]: edges between groups absent in [from, to); unlisted agents form one group"},
	"edges.replay":                 {"-", "edge recording (Setup.RecordEdges) replacing the draws, relative to the scenario file"},

	"problem.kind":              {"required", "one of " + strings.Join(ProblemKinds(), "|")},
	"problem.dim":               {"required", "n, length of each x_i, >= 1 (portfolio: = assets, may be left out)"},
	"problem.samples_per_agent": {"", "m, data points per agent, >= 1"},
	"problem.batch":             {"", "b, minibatch size, 1 <= b <= m"},
	"problem.noise":             {"", "target noise standard deviation, >= 0 (logistic: label flip probability < 0.5)"},
	"problem.reg":               {"", "regulariser weight lambda >= 0 (logistic: > 0 unless the box is bounded)"},
	"problem.heterogeneity":     {"", "spread of the agents' local models, >= 0 (0 = i.i.d.)"},
	"problem.scale":             {"1", "nonconvex_regression only: Cauchy loss scale c > 0 (0 = 1)"},
	"problem.outliers":          {"0", "nonconvex_regression only: fraction of pure-noise rows in [0, 1)"},
	"problem.box":               {"", "X = [lo, hi]^n, lo < hi; .inf and -.inf allowed (dadmm family: must be unbounded)"},
	"problem.assets":            {"-", "portfolio only: number of assets, the length of x; required there"},
	"problem.periods":           {"-", "portfolio only: periods n, >= 2 per agent, split contiguously across agents; required there"},
	"problem.cov":               {"-", "portfolio only: condition number of the reward covariance, >= 1; required there"},
	"problem.mu":                {"-", "portfolio only: ridge weight mu > 0 of R(x) = (mu/2)||x||^2; required there"},
	"problem.init.kind":         {"", "x_0 = z_0: " + strings.Join(InitKinds(), "|")},
	"problem.init.scale":        {"", "standard deviation of a random x_0, >= 0"},

	"algorithm.name":            {"required", "one of " + strings.Join(Algorithms(), "|")},
	"algorithm.preset":          {"", "alm only: parameter rule: " + strings.Join(Presets(), "|")},
	"algorithm.params.eta":      {"by algorithm", "alm: dual step eta > 0 (preset); dadmm_composition: step eta > 0 (0.001)"},
	"algorithm.params.tau":      {"by algorithm", "alm: primal step tau > 0 (preset); dadmm_linearized: step tau > 0 (N/L_i per agent)"},
	"algorithm.params.rho":      {"by algorithm", "alm: penalty rho >= 0 (preset); dadmm_composition: penalty rho > 0 of x = w (1)"},
	"algorithm.params.mu":       {"preset", "alm only: proximal weight mu >= 0"},
	"algorithm.params.beta":     {"preset", "alm only: smoothing step beta in (0, 1]"},
	"algorithm.params.m_y":      {"preset", "alm only: dual safeguard radius M_y > 0 on the duals of f, the reported dual_norm (.inf disables resets)"},
	"algorithm.params.c_tau":    {"preset", "alm only: c_tau > 0 in tau = min{1/(2 L_K), c_tau/(L_K sqrt T)}"},
	"algorithm.params.c_beta":   {"preset", "alm only: c_beta > 0 in beta = c_beta tau mu"},
	"algorithm.params.scale":    {"preset", "alm only: sigma > 0, the agents minimise sigma f (practical: 1/L_f, so the scaled L_f = 1; theory: 1)"},
	"algorithm.params.c":        {"1", "dadmm family: edge penalty c > 0"},
	"algorithm.params.gamma":    {"0", "dadmm only: proximal weight gamma >= 0 of (gamma/2)||x - x_i^k||^2"},
	"algorithm.params.k":        {"n/N", "dadmm_composition only: rounds K >= 1 per outer iteration (default periods per agent)"},
	"algorithm.params.batch":    {"5", "dadmm_composition only: mini-batch B >= 1 of the inner estimate g_hat"},
	"algorithm.safeguard":       {"", "alm only: dual reset test ||y|| >= M_y: " + strings.Join(Safeguards(), "|")},
	"algorithm.tau_schedule":    {"constant", "alm only: primal step tau_t: constant (tau) or sqrt (tau/sqrt(t+1))"},
	"algorithm.safeguard_every": {"", "alm only: rounds between global safeguard tests, >= 1"},

	"rounds": {"required", "T, number of rounds, >= 1"},

	"metrics.every":     {"", "k: agents report every k rounds, >= 1"},
	"metrics.tolerance": {"", "stop when consensus error < tolerance; 0 = off"},

	"runtime.transport":      {"", strings.Join(Transports(), "|")},
	"runtime.nats_url":       {"-", "external NATS server URL (nats:// or tls://); not with chan"},
	"runtime.phase_deadline": {"", "wait per phase before a missing message is a dropout, > 0"},
	"runtime.agent_timeout":  {"", "silence before an agent is declared lost, > 0"},
	"runtime.timeout":        {"", "bound on the whole run, > 0"},

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

	"output.dir": {"", "parent directory of results/<run-id>/"},

	"sweep": {"-", "consim sweep only: {grid: {dotted.key: [values]}, seeds: 1, parallel: 0 (= CPUs), tolerance: 0 (= metrics.tolerance, else 1e-3 of the first value)}; consim run ignores it"},
}

// DefaultsDoc renders every scenario key with its default and allowed
// values, one per line, for the README and --help.
func DefaultsDoc() string {
	def := reflect.ValueOf(Default()).Elem()
	keys := leafKeys(def.Type(), "")
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-13s  %s\n", width, "key", "default", "meaning")
	for _, k := range keys {
		doc := keyDocs[k]
		d := doc.def
		if d == "" {
			d = formatValue(valueAt(def, k))
		}
		fmt.Fprintf(&b, "%-*s  %-13s  %s\n", width, k, d, doc.text)
	}
	return b.String()
}

// valueAt returns the field of the schema struct v at dotted key.
func valueAt(v reflect.Value, key string) reflect.Value {
	for _, name := range strings.Split(key, ".") {
		f, _ := lookupField(v.Type(), name)
		v = v.Field(f.index)
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
	case float64:
		return formatFloat(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	return fmt.Sprint(v.Interface())
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
