package catalog_test

import (
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/scenarios"
)

// TestDefaultRegistersEverything: every shipped algorithm and problem is
// in the default registry under a distinct name.
func TestDefaultRegistersEverything(t *testing.T) {
	reg := catalog.Default()
	if got, want := len(reg.Algorithms()), len(catalog.Algorithms()); got != want {
		t.Errorf("%d algorithms registered, %d shipped", got, want)
	}
	if got, want := len(reg.Problems()), len(catalog.Problems()); got != want {
		t.Errorf("%d problems registered, %d shipped", got, want)
	}
	for _, a := range catalog.Algorithms() {
		if err := a.New().Validate(); err != nil {
			t.Errorf("algorithm %s: its defaults do not validate: %v", a.Name, err)
		}
	}
}

// referenceScenarios gives each shipped algorithm a small scenario it
// can run; the test below fails for an algorithm that has none.
var referenceScenarios = map[string]string{
	"alm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4, box: [-2, 2]}
algorithm: {name: alm, safeguard_every: 1}
rounds: 60
`,
	"alm_storm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: nonconvex_regression, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1, box: [-2, 2]}
algorithm: {name: alm_storm, safeguard_every: 1}
rounds: 60
`,
	"alm_nodual": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: alm_nodual}
rounds: 60
`,
	"penalty_asg": `agents: 6
graph: {topology: ring, p: 0.5}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1, box: [-2, 2]}
algorithm: {name: penalty_asg, preset: constant}
rounds: 60
`,
	"dadmm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: dadmm}
rounds: 60
`,
	"dadmm_linearized": `agents: 5
graph: {topology: complete, p: 0.5}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: dadmm_linearized, step: 0.2}
rounds: 60
`,
	"dadmm_composition": `agents: 3
graph: {topology: complete, p: 0.7}
problem: {kind: portfolio, assets: 4, periods: 30, cov: 2, mu: 0.05}
algorithm: {name: dadmm_composition, step: 0.05, k: 10}
rounds: 60
`,
	"dgd": `agents: 9
graph: {topology: torus, rows: 3, cols: 3, p: 0.6}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: dgd, step: 0.1, schedule: sqrt}
rounds: 60
`,
	"choco_gossip": `agents: 8
graph: {topology: erdos_renyi, q: 0.4, p: 0.6}
problem: {kind: least_squares, dim: 20, init: {kind: random, scale: 1}}
algorithm: {name: choco_gossip, gamma: 0.2, compression: {operator: top_k, fraction: 0.1}}
rounds: 60
`,
	"choco_sgd": `agents: 8
graph: {topology: erdos_renyi, q: 0.4, p: 0.6}
problem: {kind: logistic, dim: 20, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: choco_sgd, step: 0.1, gamma: 0.5, compression: {operator: qsgd, bits: 4}}
rounds: 60
`,
	"tracking": `agents: 5
graph: {topology: complete, p: 0.5}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20}
algorithm: {name: tracking, step: 0.05, mixing: {rule: uniform, weight: 0.2}}
rounds: 60
`,
	"radmm": `agents: 5
graph: {topology: ring, p: 0.4}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: radmm, penalty: 0.3}
rounds: 60
`,
	"radmm_linearized": `agents: 5
graph: {topology: complete, p: 0.3}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: radmm_linearized, penalty: 0.5, step: 0.2}
rounds: 60
`,
	"slicing_alm": `agents: 6
graph: {topology: complete}
problem: {kind: slicing, example: true}
algorithm: {name: slicing_alm, eps: 0.05}
rounds: 60
`,
	"zo_splm": `agents: 1
graph: {topology: complete}
problem: {kind: qcqp, n: 8, m: 2}
algorithm: {name: zo_splm, directions: 40, chunk: 7, r: 0.01}
rounds: 30
`,
	"tsp": `agents: 4
graph: {topology: star}
problem: {kind: bilevel_quad, dim: 3}
algorithm: {name: tsp}
rounds: 60
`,
	"penalty_vrasg": `agents: 3
graph: {topology: complete}
problem: {kind: constrained_logistic, dim: 5, samples: 60, core: 4}
algorithm: {name: penalty_vrasg, preset: 4ii}
rounds: 12
`,
	"fair_alm": `agents: 4
graph: {topology: complete}
problem: {kind: fairness, per_class: 60, c: 0.2}
algorithm: {name: fair_alm, batch: 8}
rounds: 40
`,
	"push_sum": `agents: 6
graph: {topology: digraph, q: 0.3, p: 0.5}
problem: {kind: least_squares, dim: 3, init: {kind: random}}
algorithm: {name: push_sum}
rounds: 60
`,
	"subgradient_push": `agents: 6
graph: {topology: k_out, k: 2, p_range: [0.4, 0.9]}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: subgradient_push, step: 0.5}
rounds: 60
`,
	"push_pull": `agents: 6
graph: {topology: directed_sequence, period: 2, q: 0.3, p: 0.7}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20}
algorithm: {name: push_pull, step: 0.2}
rounds: 60
`,
	"exchange": `agents: 5
graph: {topology: ring}
problem: {kind: least_squares, dim: 3}
algorithm: {name: exchange}
rounds: 60
`,
	"pairwise_gossip": `agents: 6
graph: {topology: ring, p: 0.7}
problem: {kind: least_squares, dim: 3, init: {kind: random}}
algorithm: {name: pairwise_gossip}
async: {mode: simulated, horizon: 30, latency: {dist: exponential, mean: 0.1}}
`,
	"adpsgd": `agents: 6
graph: {topology: ring, p: 0.7}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: adpsgd, step: 0.05}
async: {mode: simulated, horizon: 30, stragglers: {agents: [1]}, latency: {dist: exponential, mean: 0.1}}
`,
	"async_admm": `agents: 6
graph: {topology: ring, p: 0.7}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20}
algorithm: {name: async_admm}
async: {mode: simulated, horizon: 30, latency: {dist: exponential, mean: 0.1}}
`,
}

// TestAgentsReproduceReferences: for every shipped algorithm that has a
// centralized matrix-form reference, the registry's agents stepped in
// lockstep give the reference's iterates on the same draws.
func TestAgentsReproduceReferences(t *testing.T) {
	for _, name := range catalog.Default().Algorithms() {
		t.Run(name, func(t *testing.T) {
			src, ok := referenceScenarios[name]
			if !ok {
				t.Fatalf("no reference scenario for algorithm %s: add one", name)
			}
			s, err := scenarios.Parse([]byte(src), name+".yaml")
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			if s.Async.On() {
				runAsync(t, st)
				return
			}
			ref, ok := st.Run.(registry.Referencer)
			if !ok {
				t.Skipf("%s has no centralized reference", name)
			}
			agents, err := st.Agents()
			if err != nil {
				t.Fatal(err)
			}
			var opts []lockstep.Option
			if or, ok := st.Run.(registry.Oracles); ok {
				opts = append(opts, lockstep.WithOracle(or.Oracle(0)))
			}
			d, err := lockstep.New(agents, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Run(0, s.Rounds); err != nil {
				t.Fatal(err)
			}
			want, err := ref.Reference(s.Rounds)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i, a := range agents {
				x := a.Report().X
				for k := range x {
					worst = math.Max(worst, math.Abs(x[k]-want[i][k])/(1+math.Abs(want[i][k])))
				}
			}
			if worst > 1e-10 {
				t.Fatalf("agents differ from the reference by %.3g (relative)", worst)
			}
			if worst == 0 && name != "exchange" {
				t.Logf("bit-identical to the reference")
			}
		})
	}
}

// runAsync runs an asynchronous scenario on the event engine and checks
// that every agent updated. The asynchronous algorithms are compared with
// their matrix-form references in their own packages, on the sequence of
// events the engine reports.
func runAsync(t *testing.T, st *scenarios.Setup) {
	agents, err := st.AsyncAgents()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := async.New(agents, async.Options{Clock: st.Scenario.AsyncClock(), Link: st.AsyncLink()})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Run(st.Scenario.Async.Horizon); err != nil {
		t.Fatal(err)
	}
	for i := range agents {
		if eng.Updates(i) == 0 {
			t.Errorf("agent %d made no update in %v time units", i, st.Scenario.Async.Horizon)
		}
	}
	t.Logf("%d updates, %d messages (%d lost)", eng.Counters().Updates, eng.Counters().Sent, eng.Counters().Lost)
}

// module is the module path; problemsRoot the import path under which
// every problem family lives.
const (
	module       = "github.com/consim/consim"
	problemsRoot = module + "/problems/"
)

// definedIn returns the import path of the package whose source holds the
// code of fn: the directory of its file relative to the module root (the
// parent of this test's directory; under -trimpath the file is named by
// its module path already). The file, not the function's name, tells: a
// registration inlined into Problems names its closures after catalog.
func definedIn(t *testing.T, fn any) string {
	t.Helper()
	pc := reflect.ValueOf(fn).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	dir := filepath.ToSlash(filepath.Dir(file))
	if strings.HasPrefix(dir, module+"/") {
		return dir
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, filepath.Dir(file))
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("%s is outside the module root %s", file, root)
	}
	return module + "/" + filepath.ToSlash(rel)
}

// TestProblemsRegisteredFromProblems: every problem.kind of the shipped
// catalog is registered from a package under problems/: its New and Build
// are functions of that package.
func TestProblemsRegisteredFromProblems(t *testing.T) {
	reg := catalog.Default()
	kinds := reg.Problems()
	if len(kinds) == 0 {
		t.Fatal("no problem kinds registered")
	}
	for _, kind := range kinds {
		p, _ := reg.Problem(kind)
		build, params := definedIn(t, p.Build), definedIn(t, p.New)
		if !strings.HasPrefix(build, problemsRoot) || build != params {
			t.Errorf("problem kind %s: Build from %s, New from %s; want one package under %s", kind, build, params, problemsRoot)
			continue
		}
		t.Logf("%-22s %s", kind, strings.TrimPrefix(build, module+"/"))
	}
	// The test tells a registration made elsewhere apart.
	local := registry.Problem{Kind: "local", New: func() registry.Params { return nil }}
	if got := definedIn(t, local.New); got != module+"/catalog" {
		t.Fatalf("a function of this test counted as defined in %s", got)
	}
}
