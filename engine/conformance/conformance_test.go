package conformance_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/engine"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/observe/bundle"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
	"github.com/consim/consim/stepped"
)

// cases gives every registered algorithm a small scenario it accepts, with
// the algorithm's default parameters; graphs with p < 1 drop edges from
// round to round (the graph's edge process). The test adds rounds,
// metrics, runtime, output and faults.
var cases = map[string]string{
	"alm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4, box: [-2, 2]}
algorithm: {name: alm}
`,
	"alm_storm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: nonconvex_regression, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1, box: [-2, 2]}
algorithm: {name: alm_storm}
`,
	"alm_nodual": `agents: 4
graph: {topology: complete, p: 0.5}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: alm_nodual}
`,
	"penalty_asg": `agents: 5
graph: {topology: ring, p: 0.5}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1, box: [-2, 2]}
algorithm: {name: penalty_asg}
`,
	"dadmm": `agents: 5
graph: {topology: ring, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: dadmm}
`,
	"dadmm_linearized": `agents: 4
graph: {topology: complete, p: 0.5}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: dadmm_linearized}
`,
	"dadmm_composition": `agents: 3
graph: {topology: complete, p: 0.7}
problem: {kind: portfolio, assets: 4, periods: 30, cov: 2, mu: 0.05}
algorithm: {name: dadmm_composition}
`,
	"dgd": `agents: 9
graph: {topology: torus, rows: 3, cols: 3, p: 0.6}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: dgd}
`,
	"tracking": `agents: 5
graph: {topology: complete, p: 0.5}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20}
algorithm: {name: tracking}
`,
	"radmm": `agents: 5
graph: {topology: ring, p: 0.5}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 4}
algorithm: {name: radmm}
`,
	"radmm_linearized": `agents: 4
graph: {topology: complete, p: 0.5}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: radmm_linearized}
`,
	"slicing_alm": `agents: 6
graph: {topology: complete}
problem: {kind: slicing, example: true}
algorithm: {name: slicing_alm}
`,
	"zo_splm": `agents: 1
graph: {topology: complete}
problem: {kind: qcqp, n: 8, m: 2}
algorithm: {name: zo_splm}
`,
	"tsp": `agents: 4
graph: {topology: star}
problem: {kind: bilevel_quad, dim: 3}
algorithm: {name: tsp}
`,
	"penalty_vrasg": `agents: 3
graph: {topology: complete}
problem: {kind: constrained_logistic, dim: 5, samples: 60, core: 4}
algorithm: {name: penalty_vrasg}
`,
	"exchange": `agents: 5
graph: {topology: ring}
problem: {kind: least_squares, dim: 3}
algorithm: {name: exchange}
`,
	"push_sum": `agents: 6
graph: {topology: digraph, q: 0.4, p: 0.6}
problem: {kind: least_squares, dim: 3, samples_per_agent: 1, batch: 1, init: {kind: random, scale: 1}}
algorithm: {name: push_sum}
`,
	"subgradient_push": `agents: 5
graph: {topology: directed_ring, p: 0.7}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: subgradient_push}
`,
	"push_pull": `agents: 5
graph: {topology: digraph, q: 0.4, p: 0.6}
problem: {kind: logistic, dim: 3, samples_per_agent: 20, batch: 4, reg: 0.1, init: {kind: random, scale: 0.1}}
algorithm: {name: push_pull}
`,
	"choco_gossip": `agents: 5
graph: {topology: erdos_renyi, q: 0.6, p: 0.6}
problem: {kind: least_squares, dim: 6, init: {kind: random, scale: 1}}
algorithm: {name: choco_gossip, compression: {operator: top_k, fraction: 0.34}}
`,
	"choco_sgd": `agents: 5
graph: {topology: erdos_renyi, q: 0.6, p: 0.6}
problem: {kind: logistic, dim: 6, samples_per_agent: 20, batch: 4, reg: 0.1}
algorithm: {name: choco_sgd, compression: {operator: qsgd, bits: 4}}
`,
	"fair_alm": `agents: 4
graph: {topology: complete}
problem: {kind: fairness, per_class: 30, c: 0.2}
algorithm: {name: fair_alm}
`,
	"groups": `agents: 5
graph: {topology: ring, p: 0.7}
problem: {kind: least_squares, dim: 3, samples_per_agent: 10}
algorithm: {name: groups}
`,
}

const (
	// lossRate is the injected message loss of the runs with loss.
	lossRate = 0.15
	// deadline is node's phase deadline, which no run reaches: every
	// message node waits for comes (edge-process dropouts are agreed by
	// both endpoints and not waited for).
	deadline = "1m"
)

// rounds and every are the runs' length: rows are measured at rounds 0,
// every, 2 every, ... and at the last round. CONSIM_LONG=1 runs longer.
var rounds, every = 10, 4

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("CONSIM_LONG") == "1" && !testing.Short() {
		rounds, every = 60, 8
	}
	os.Exit(m.Run())
}

// TestConformance runs every registered algorithm through every driver
// and compares final iterates, measured rows and dropout counts bit for
// bit with consensus/lockstep's: stepped with 1 and 3 workers (its own
// measures too, where the run has no evaluator of its own), node on the
// channel and in-process NATS transports (through sim, so the measures
// are the results bundle's), and, with injected message loss, lockstep
// against stepped. Node's injected loss is timed by its phase deadline:
// an agent that waits out a lost message sends its next messages late
// for peers that did not wait, so its dropouts depend on the clock and it
// is left out of the comparison with loss.
func TestConformance(t *testing.T) {
	reg := registryWithGroups(t)
	for _, name := range reg.Algorithms() {
		t.Run(name, func(t *testing.T) {
			if a, _ := reg.Algorithm(name); a.Async {
				t.Skip("asynchronous: it has no rounds; package async's event engine and real-time driver run it (docs/async.md)")
			}
			src, ok := cases[name]
			if !ok {
				t.Fatalf("no conformance scenario for algorithm %s: add one to cases", name)
			}
			c := newCase(t, reg, name, src)
			lock := func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
				return c.lockstep(t, as, o, drop)
			}
			ref := c.mustSteps(t, false, lock)
			if want := (rounds+every-1)/every + 1; len(ref.rows) != want || ref.rows[len(ref.rows)-1].Round != rounds {
				t.Fatalf("lockstep measured %d rows, want %d up to round %d", len(ref.rows), want, rounds)
			}
			for _, w := range []int{1, 3} {
				got := c.mustSteps(t, false, func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
					return c.stepped(t, as, o, drop, w)
				})
				if d := diff(ref, got); d != "" {
					t.Errorf("stepped, %d workers: %s", w, d)
				}
			}
			if !c.evaluator {
				if d := diff(ref, c.mustSim(t, "stepped", false, nil)); d != "" {
					t.Errorf("sim on the stepped engine: %s", d)
				}
			}
			for _, tr := range []string{"chan", "nats"} {
				if d := diff(ref, c.mustSim(t, tr, false, nil)); d != "" {
					t.Errorf("node on %s: %s", tr, d)
				}
			}

			// Injected loss. Agents that refuse a lost message must fail
			// the same way under every driver.
			lossy, lerr := c.steps(t, true, lock)
			got, serr := c.steps(t, true, func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
				return c.stepped(t, as, o, drop, 3)
			})
			switch {
			case lerr != nil:
				if serr == nil || agentError(serr) != agentError(lerr) {
					t.Fatalf("with loss, lockstep fails with %v, stepped with %v", lerr, serr)
				}
				t.Logf("the agents refuse message loss under both drivers: %v", agentError(lerr))
			case serr != nil:
				t.Fatalf("stepped with loss: %v", serr)
			case lossy.sent > 0 && lossy.missing == 0:
				t.Errorf("the lossy run lost none of its %d messages", lossy.sent)
			default:
				if d := diff(lossy, got); d != "" {
					t.Errorf("stepped with loss: %s", d)
				}
			}
		})
	}
}

// agentError is err without the driver's name, the text before its first
// ": ".
func agentError(err error) string {
	s := err.Error()
	if k := strings.Index(s, ": "); k >= 0 {
		return s[k+2:]
	}
	return s
}

// TestDeviatingDriverFails: the comparison catches a driver that deviates
// from the phase core, under the drivers that run it.
func TestDeviatingDriverFails(t *testing.T) {
	reg := registryWithGroups(t)
	t.Run("lockstep/a message reported missing", func(t *testing.T) {
		c := newCase(t, reg, "dgd", cases["dgd"])
		lock := func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
			return c.lockstep(t, as, o, drop)
		}
		ref := c.mustSteps(t, false, lock)
		got := c.mustSteps(t, false, func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
			dropFirst(as)
			return c.lockstep(t, as, o, drop)
		})
		if d := diff(ref, got); d == "" {
			t.Fatal("a driver that reports a delivered message missing passes the comparison")
		} else {
			t.Logf("caught: %s", d)
		}
	})
	t.Run("node/a sum for an agent without a reduce term", func(t *testing.T) {
		c := newCase(t, reg, "groups", cases["groups"])
		ref := c.mustSteps(t, false, func(as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
			return c.lockstep(t, as, o, drop)
		})
		if d := diff(ref, c.mustSim(t, "chan", false, nil)); d != "" {
			t.Fatalf("node without the mutation: %s", d)
		}
		if d := diff(ref, c.mustSim(t, "chan", false, sumForAll)); d == "" {
			t.Fatal("a driver that hands the all-reduce's sum to an agent without a term passes the comparison")
		} else {
			t.Logf("caught: %s", d)
		}
	})
}

// TestReduceWithoutTerm is the divergence the drivers used to have: an
// agent that gives no reduce term gets a nil Inbox.Reduce under every
// driver, and the agents that reduce get the sum of the terms given, in
// a phase whose all-reduce some agents sit out (lockstep and stepped
// count their terms missing; node would wait for them until its
// deadline) and in one of group reduces (node too).
func TestReduceWithoutTerm(t *testing.T) {
	terms := [][]float64{{1}, {2}, nil}
	want := [][]float64{{3}, {3}, nil}
	mk := func() []*probe {
		ps := make([]*probe, len(terms))
		for i := range ps {
			ps[i] = &probe{id: i, reduce: terms[i]}
		}
		return ps
	}
	check := func(driver string, ps []*probe) {
		for i, p := range ps {
			if !equalSlices(p.got, want[i]) {
				t.Errorf("%s: agent %d: Inbox.Reduce %v, want %v", driver, i, p.got, want[i])
			}
		}
	}
	ps := mk()
	d, err := lockstep.New(agentsOf(ps))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Round(0); err != nil {
		t.Fatal(err)
	}
	check("lockstep", ps)
	if m := d.Counts().ReduceMissing; m != 1 {
		t.Errorf("lockstep: %d missing reduce terms, want 1", m)
	}
	ps = mk()
	e, err := stepped.New(agentsOf(ps), stepped.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Round(0); err != nil {
		t.Fatal(err)
	}
	check("stepped", ps)
	if m := e.Counts().ReduceMissing; m != 1 {
		t.Errorf("stepped: %d missing reduce terms, want 1", m)
	}
	// Node: agents 0 and 1 reduce over the group {0, 1}, agent 2 gives no
	// term (the groups algorithm of TestConformance does the same on a
	// graph, under every driver).
	for _, driver := range []string{"lockstep", "node"} {
		ps = mk()
		ps[0].group, ps[1].group = []int{0, 1}, []int{0, 1}
		if driver == "lockstep" {
			if err := lockstep.Round(agentsOf(ps), 0); err != nil {
				t.Fatal(err)
			}
		} else {
			runOnNode(t, agentsOf(ps))
		}
		check(driver+" with a group", ps)
	}
}

// probe is a one-phase agent that gives the reduce term reduce over
// group (nil: the all-reduce) and records the Inbox.Reduce it gets.
type probe struct {
	id     int
	reduce []float64
	group  []int
	got    []float64
}

func (p *probe) ID() int        { return p.id }
func (p *probe) Phases(int) int { return 1 }
func (p *probe) Send(int, int) consensus.Outbox {
	return consensus.Outbox{Reduce: p.reduce, Group: p.group}
}
func (p *probe) Receive(_, _ int, in consensus.Inbox) error {
	if in.Reduce != nil {
		p.got = append([]float64{}, in.Reduce...)
	}
	return nil
}
func (p *probe) Report() consensus.Report { return consensus.Report{ID: p.id, X: []float64{0}} }

func agentsOf(ps []*probe) []consensus.Agent {
	as := make([]consensus.Agent, len(ps))
	for i, p := range ps {
		as[i] = p
	}
	return as
}

func equalSlices(a, b []float64) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// runOnNode runs agents for one round under node on the channel
// transport, each agent its own goroutine, with a phase deadline no run
// reaches.
func runOnNode(t *testing.T, agents []consensus.Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := len(agents)
	tr, err := node.NewTransport(node.TransportConfig{Kind: node.TransportChan, N: n, RunID: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	errs := make(chan error, n)
	for i, a := range agents {
		ep, err := tr.Endpoint(i)
		if err != nil {
			t.Fatal(err)
		}
		defer ep.Close()
		go func() { errs <- node.Run(ctx, a, ep, node.Options{N: n, Rounds: 1, PhaseDeadline: time.Minute}) }()
	}
	if err := node.StartWhenReady(ctx, obs, n); err != nil {
		t.Fatal(err)
	}
	for range agents {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// result is what a run shows: its measured rows, its agents' final
// iterates, and the dropouts (expected messages that did not come) and
// missing reduce terms it counted (-1: not counted by the driver).
type result struct {
	rows                   []observe.Metrics
	final                  [][]float64
	missing, reduceMissing int64
	sent                   int64 // messages sent (lockstep, stepped)
}

// diff returns the first difference between two results, "" if none:
// every value bit for bit (a non-finite value, which the bundle writes as
// null, matches any non-finite value).
func diff(want, got result) string {
	if len(got.rows) != len(want.rows) {
		return fmt.Sprintf("%d measured rows, want %d", len(got.rows), len(want.rows))
	}
	for k := range want.rows {
		w, g := want.rows[k], got.rows[k]
		if g.Round != w.Round || g.GradEvals != w.GradEvals {
			return fmt.Sprintf("row %d: round %d, grad evals %d; want %d, %d", k, g.Round, g.GradEvals, w.Round, w.GradEvals)
		}
		for _, f := range []struct {
			name string
			g, w float64
		}{
			{"consensus_err", g.ConsensusErr, w.ConsensusErr},
			{"consensus_err_rel", g.ConsensusErrRel, w.ConsensusErrRel},
			{"obj_value", g.ObjValue, w.ObjValue},
			{"opt_gap", g.OptGap, w.OptGap},
			{"dist_to_opt", g.DistToOpt, w.DistToOpt},
			{"feasibility", g.Feasibility, w.Feasibility},
			{"dual_drift", g.DualDrift, w.DualDrift},
		} {
			if !same(f.g, f.w) {
				return fmt.Sprintf("round %d: %s = %.17g, want %.17g", w.Round, f.name, f.g, f.w)
			}
		}
		if len(g.Extra) != len(w.Extra) {
			return fmt.Sprintf("round %d: %d declared measures, want %d", w.Round, len(g.Extra), len(w.Extra))
		}
		for e := range w.Extra {
			if g.Extra[e].Name != w.Extra[e].Name || !same(g.Extra[e].Value, w.Extra[e].Value) {
				return fmt.Sprintf("round %d: %s = %.17g, want %s = %.17g", w.Round, g.Extra[e].Name, g.Extra[e].Value, w.Extra[e].Name, w.Extra[e].Value)
			}
		}
	}
	if len(got.final) != len(want.final) {
		return fmt.Sprintf("%d final iterates, want %d", len(got.final), len(want.final))
	}
	for i := range want.final {
		if len(got.final[i]) != len(want.final[i]) {
			return fmt.Sprintf("agent %d: final x of length %d, want %d", i, len(got.final[i]), len(want.final[i]))
		}
		for k := range want.final[i] {
			if math.Float64bits(got.final[i][k]) != math.Float64bits(want.final[i][k]) {
				return fmt.Sprintf("agent %d: final x[%d] = %.17g, want %.17g", i, k, got.final[i][k], want.final[i][k])
			}
		}
	}
	if got.missing >= 0 && want.missing >= 0 && got.missing != want.missing {
		return fmt.Sprintf("%d dropouts, want %d", got.missing, want.missing)
	}
	if got.reduceMissing >= 0 && want.reduceMissing >= 0 && got.reduceMissing != want.reduceMissing {
		return fmt.Sprintf("%d missing reduce terms, want %d", got.reduceMissing, want.reduceMissing)
	}
	return ""
}

// same reports whether a and b have the same bits, or are both
// non-finite.
func same(a, b float64) bool {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	return math.Float64bits(a) == math.Float64bits(b) || !finite(a) && !finite(b)
}

// testCase is one algorithm's scenario in the registry of the test.
type testCase struct {
	reg       *registry.Registry
	name, src string
	// evaluator is set when the run measures itself (registry.Evaluator),
	// which sim's stepped path does not take.
	evaluator bool
	// ev is the coordinator's evaluator of the run, which measures the
	// lockstep and stepped runs as it measures node's.
	ev coordinator.Evaluator
}

func newCase(t *testing.T, reg *registry.Registry, name, src string) *testCase {
	t.Helper()
	c := &testCase{reg: reg, name: name, src: src}
	st := c.setup(t, "chan", false, t.TempDir())
	_, c.evaluator = st.Run.(registry.Evaluator)
	_, ev, err := sim.CoordinatorConfig(st, "reference", hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.ev = ev
	return c
}

// setup builds the case's scenario on transport, with loss if lossy,
// writing bundles under dir.
func (c *testCase) setup(t *testing.T, transport string, lossy bool, dir string) *scenarios.Setup {
	t.Helper()
	faults := ""
	if lossy {
		faults = fmt.Sprintf("faults: {loss: {rate: %v}}\n", lossRate)
	}
	workers := 0
	if c.name == "zo_splm" || c.name == "groups" {
		workers = 2 // the evaluations fan out to oracle workers
	}
	src := c.src + fmt.Sprintf("rounds: %d\nmetrics: {every: %d}\nruntime: {transport: %s, phase_deadline: %s, workers: %d}\noutput: {dir: %q}\n%s",
		rounds, every, transport, deadline, workers, dir, faults)
	s, err := scenarios.ParseWith(c.reg, []byte(src), c.name+".yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// stepper is a driver that holds every agent: lockstep or stepped.
type stepper interface {
	Round(t int) error
	Counts() engine.Counts
}

func (c *testCase) lockstep(t *testing.T, as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc) stepper {
	t.Helper()
	var opts []lockstep.Option
	if o != nil {
		opts = append(opts, lockstep.WithOracle(o.Oracle(0)))
	}
	if drop != nil {
		opts = append(opts, lockstep.WithDrop(drop))
	}
	d, err := lockstep.New(as, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (c *testCase) stepped(t *testing.T, as []consensus.Agent, o registry.Oracles, drop lockstep.DropFunc, workers int) stepper {
	t.Helper()
	opts := stepped.Options{Workers: workers, Drop: drop}
	if o != nil {
		opts.Oracle = o.Oracle
	}
	e, err := stepped.New(as, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// steps runs the case under a driver that holds every agent, measuring
// the rows the coordinator measures (round 0, every every rounds, the
// last) with the coordinator's evaluator.
func (c *testCase) steps(t *testing.T, lossy bool, driver func([]consensus.Agent, registry.Oracles, lockstep.DropFunc) stepper) (result, error) {
	t.Helper()
	st := c.setup(t, "chan", lossy, t.TempDir())
	as, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	o, _ := st.Run.(registry.Oracles)
	var drop lockstep.DropFunc
	if lossy {
		f := st.Scenario.Faults.Node(st.Scenario.Seed)
		drop = f.Lost
	}
	d := driver(as, o, drop)
	var res result
	measure := func(r int) {
		reps := make([]consensus.Report, len(as))
		for i, a := range as {
			reps[i] = a.Report()
		}
		m, err := c.ev.Evaluate(reps)
		if err != nil {
			t.Fatal(err)
		}
		m.Round = r
		res.rows = append(res.rows, m)
	}
	measure(0)
	for r := range rounds {
		if err := d.Round(r); err != nil {
			return res, err
		}
		if (r+1)%every == 0 || r+1 == rounds {
			measure(r + 1)
		}
	}
	for _, a := range as {
		res.final = append(res.final, a.Report().X)
	}
	cnt := d.Counts()
	res.missing, res.reduceMissing, res.sent = cnt.Missing, cnt.ReduceMissing, cnt.Sent
	return res, nil
}

// mustSteps is steps, failing the test on an error.
func (c *testCase) mustSteps(t *testing.T, lossy bool, driver func([]consensus.Agent, registry.Oracles, lockstep.DropFunc) stepper) result {
	t.Helper()
	res, err := c.steps(t, lossy, driver)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sim runs the case through sim on transport ("chan", "nats": node's
// runtime and the coordinator; "stepped": the stepped engine) and reads
// the measured rows and final iterates from the results bundle. wrap, if
// set, wraps the agents first.
func (c *testCase) sim(t *testing.T, transport string, lossy bool, wrap func([]consensus.Agent)) (result, error) {
	t.Helper()
	dir := t.TempDir()
	st := c.setup(t, transport, lossy, dir)
	opts := sim.Options{RunID: "run"}
	if wrap != nil {
		as, err := st.Agents()
		if err != nil {
			t.Fatal(err)
		}
		wrap(as)
		opts.Agents = as
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := sim.RunSetup(ctx, st, opts)
	if err != nil {
		return result{}, err
	}
	if got := sum.Meta["transport"]; got != transport {
		t.Fatalf("the run's transport is %v, want %s", got, transport)
	}
	res := result{missing: -1, reduceMissing: -1}
	if transport != "stepped" {
		res.missing, res.reduceMissing = sum.Traffic.Dropouts, sum.Traffic.ReduceMissing
	}
	data, err := os.ReadFile(filepath.Join(dir, "run", bundle.MetricsJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var row bundle.Row
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		res.rows = append(res.rows, row.Metrics)
	}
	data, err = os.ReadFile(filepath.Join(dir, "run", bundle.FinalFile))
	if err != nil {
		t.Fatal(err)
	}
	var f bundle.FinalIterates
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for i, a := range f.Agents {
		if a.ID != i || !a.Final || a.Round != rounds {
			t.Fatalf("final.json: entry %d is agent %d after round %d (final %v), want agent %d after round %d", i, a.ID, a.Round, a.Final, i, rounds)
		}
		res.final = append(res.final, a.X)
	}
	return res, nil
}

// mustSim is sim, failing the test on an error.
func (c *testCase) mustSim(t *testing.T, transport string, lossy bool, wrap func([]consensus.Agent)) result {
	t.Helper()
	res, err := c.sim(t, transport, lossy, wrap)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// dropFirst makes agent 0 report its first message of round 1 missing:
// a driver that loses a delivered message.
func dropFirst(as []consensus.Agent) {
	as[0] = &mutant{Agent: as[0], mutate: func(t, _ int, in *consensus.Inbox) {
		if t == 1 && len(in.Msgs) > 0 {
			in.Missing = append([]int{in.Msgs[0].From}, in.Missing...)
			in.Msgs = in.Msgs[1:]
		}
	}}
}

// sumForAll hands the groups algorithm's agent without a reduce term (the
// last) a sum in its phase of group reduces, as consensus/lockstep used to
// hand the all-reduce's sum to every agent without a group.
func sumForAll(as []consensus.Agent) {
	last := len(as) - 1
	as[last] = &mutant{Agent: as[last], mutate: func(_, ph int, in *consensus.Inbox) {
		if ph == 1 && in.Reduce == nil {
			in.Reduce = []float64{3, 3, 3}
		}
	}}
}

// mutant is an agent whose inboxes a deviating driver changed.
type mutant struct {
	consensus.Agent
	mutate func(t, ph int, in *consensus.Inbox)
}

func (m *mutant) Receive(t, ph int, in consensus.Inbox) error {
	m.mutate(t, ph, &in)
	return m.Agent.Receive(t, ph, in)
}
