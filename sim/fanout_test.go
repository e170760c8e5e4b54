package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// probeAgent asks, every round, for 40 evaluations at its x and moves x
// by a small multiple of their sum; it has no neighbours to talk to.
type probeAgent struct {
	id, rounds int
	x          []float64
}

func (a *probeAgent) ID() int        { return a.id }
func (a *probeAgent) Phases(int) int { return 1 }
func (a *probeAgent) Send(t, _ int) consensus.Outbox {
	reqs := make([]consensus.EvalRequest, 40)
	for k := range reqs {
		reqs[k] = consensus.EvalRequest{Op: 1, Key: uint64(1000*t + k), Arg: a.x}
	}
	return consensus.Outbox{Evals: reqs}
}
func (a *probeAgent) Receive(_, _ int, in consensus.Inbox) error {
	for _, v := range in.Evals {
		for j := range a.x {
			a.x[j] += float64(1e-3 * v[j])
		}
	}
	a.rounds++
	return nil
}
func (a *probeAgent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.rounds, X: append([]float64(nil), a.x...)}
}

// sinOracle returns sin(key + x_j) per coordinate: a pure function of the
// request.
type sinOracle struct{}

func (sinOracle) Evaluate(req consensus.EvalRequest, out []float64) ([]float64, error) {
	for _, x := range req.Arg {
		out = append(out, math.Sin(float64(req.Key)+x))
	}
	return out, nil
}

type probeRun struct{ env *registry.Env }

func (r probeRun) Agent(i int) (consensus.Agent, error) {
	return &probeAgent{id: i, x: r.env.Init(i)}, nil
}
func (probeRun) Resolved() []registry.Value         { return nil }
func (probeRun) Oracle(worker int) consensus.Oracle { return sinOracle{} }

type probeParams struct{}

func (*probeParams) Validate() error { return nil }

// TestFanoutWorkersAndTransports: an algorithm whose agents fan
// evaluations out runs from a scenario with runtime.workers oracle
// workers; the iterates are the same bits whatever the number of workers
// and the transport.
func TestFanoutWorkersAndTransports(t *testing.T) {
	reg := catalog.Default()
	if err := reg.RegisterAlgorithm(registry.Algorithm{
		Name: "probe", Summary: "fan-out probe", New: func() registry.Params { return &probeParams{} },
		Build:   func(_ registry.Params, env *registry.Env) (registry.Run, error) { return probeRun{env}, nil },
		FansOut: true,
	}); err != nil {
		t.Fatal(err)
	}
	var want [][]float64
	for _, c := range []struct {
		transport string
		workers   int
	}{{"chan", 0}, {"chan", 3}, {"nats", 0}, {"nats", 2}} {
		out := t.TempDir()
		s, err := scenarios.ParseWith(reg, []byte(fmt.Sprintf(`
agents: 3
graph: {topology: path}
problem: {kind: least_squares, dim: 4}
algorithm: {name: probe}
rounds: 30
metrics: {every: 30}
runtime: {transport: %s, workers: %d}
output: {dir: %s}
`, c.transport, c.workers, out)), "probe.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(context.Background(), s, sim.Options{RunID: "probe"}); err != nil {
			t.Fatalf("%s, %d workers: %v", c.transport, c.workers, err)
		}
		raw, err := os.ReadFile(filepath.Join(out, "probe", coordinator.FinalFile))
		if err != nil {
			t.Fatal(err)
		}
		var fin coordinator.FinalIterates
		if err := json.Unmarshal(raw, &fin); err != nil {
			t.Fatal(err)
		}
		var got [][]float64
		for _, a := range fin.Agents {
			if a.Round != 30 {
				t.Fatalf("%s, %d workers: agent %d stopped at round %d", c.transport, c.workers, a.ID, a.Round)
			}
			got = append(got, a.X)
		}
		if want == nil {
			want = got
			continue
		}
		for i := range want {
			for j := range want[i] {
				if math.Float64bits(got[i][j]) != math.Float64bits(want[i][j]) {
					t.Fatalf("%s, %d workers: x_%d[%d] = %v, chan without workers %v", c.transport, c.workers, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
}
