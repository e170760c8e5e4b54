package sim_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// blockAgent holds a block of i+1 values, all equal to the rounds done.
// It talks to nobody.
type blockAgent struct {
	id, rounds int
}

func (a *blockAgent) ID() int                                 { return a.id }
func (a *blockAgent) Phases(int) int                          { return 1 }
func (a *blockAgent) Send(int, int) consensus.Outbox          { return consensus.Outbox{} }
func (a *blockAgent) Receive(int, int, consensus.Inbox) error { a.rounds++; return nil }
func (a *blockAgent) Report() consensus.Report {
	x := make([]float64, a.id+1)
	for k := range x {
		x[k] = float64(a.rounds)
	}
	return consensus.Report{ID: a.id, Round: a.rounds, X: x}
}

// blockRun measures the blocks itself: the objective is the sum of every
// value, f* = 1, and one measure of its own, the number of values.
type blockRun struct{}

func (blockRun) Agent(i int) (consensus.Agent, error) { return &blockAgent{id: i}, nil }
func (blockRun) Resolved() []registry.Value           { return nil }
func (blockRun) Optimum() (float64, bool, error)      { return 1, true, nil }
func (blockRun) Measures() []consensus.Measure {
	return []consensus.Measure{{Name: "values", Reduce: consensus.ReduceSum, Evaluated: true, Doc: "number of values held"}}
}
func (blockRun) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	var sum float64
	n := 0
	for _, r := range reps {
		for _, v := range r.X {
			sum += v
			n++
		}
	}
	return registry.Evaluation{ObjValue: sum, OptGap: sum - 1, DistToOpt: math.NaN(), Values: []float64{float64(n)}}, nil
}

type noParams struct{}

func (*noParams) Validate() error { return nil }

// TestEvaluatorMeasuresTheRun: a run that implements registry.Evaluator
// is measured by it, on a problem whose Central fails with ErrNoCentral
// (so the coordinator must not call it): its objective and column reach
// the metrics; and a report with a NaN gives a NaN consensus error, which
// the coordinator counts as divergence.
func TestEvaluatorMeasuresTheRun(t *testing.T) {
	reg := catalog.Default()
	if err := reg.RegisterAlgorithm(registry.Algorithm{
		Name: "blocks", Summary: "agents with blocks of different lengths", New: func() registry.Params { return &noParams{} },
		Build: func(registry.Params, *registry.Env) (registry.Run, error) { return blockRun{}, nil },
		Roles: registry.Nodes,
	}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	s, err := scenarios.ParseWith(reg, []byte(`
agents: 3
graph: {topology: star}
problem: {kind: bilevel_quad, dim: 2}
algorithm: {name: blocks}
rounds: 10
metrics: {every: 5}
runtime: {transport: chan}
output: {dir: `+out+`}
`), "blocks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "blocks"})
	if err != nil {
		t.Fatal(err)
	}
	// After 10 rounds the agents hold 1 + 2 + 3 = 6 values, each 10.
	if f := sum.Final.ObjValue; f != 60 || sum.Final.OptGap != 59 || sum.Final.ConsensusErr != 0 {
		t.Errorf("final objective %v, gap %v, consensus error %v; want 60, 59, 0", f, sum.Final.OptGap, sum.Final.ConsensusErr)
	}
	csv, err := os.ReadFile(filepath.Join(out, "blocks", coordinator.MetricsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if !strings.HasSuffix(lines[0], ",values") || !strings.HasSuffix(lines[len(lines)-1], ",6") {
		t.Errorf("metrics.csv: header %q, last row %q; want the column values = 6", lines[0], lines[len(lines)-1])
	}

	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, ev, err := sim.CoordinatorConfig(st, "blocks-nan", hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	reps := []consensus.Report{{ID: 0, Round: 3, X: []float64{1}}, {ID: 1, Round: 3, X: []float64{2, math.Inf(1)}}, {ID: 2, Round: 3, X: []float64{3, 3, 3}}}
	m, err := ev.Evaluate(reps)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(m.ConsensusErr) || m.Round != 3 || len(m.Extra) != 1 || m.Extra[0].Value != 6 {
		t.Errorf("an infinite value: consensus error %v (want NaN), round %d, extra %v", m.ConsensusErr, m.Round, m.Extra)
	}
}
