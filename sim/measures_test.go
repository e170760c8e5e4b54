package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// countingAgent is an exchange agent that reports two measures of its
// own: its id and 1.
type countingAgent struct{ consensus.Agent }

func (a countingAgent) Report() consensus.Report {
	r := a.Agent.Report()
	r.Measures = []float64{float64(r.ID), 1}
	return r
}

type countingRun struct{ registry.Run }

func (r countingRun) Agent(i int) (consensus.Agent, error) {
	a, err := r.Run.Agent(i)
	return countingAgent{a}, err
}

func (countingRun) Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: "max_id", Reduce: consensus.ReduceMax, Doc: "the largest id reporting"},
		{Name: "agents_reporting", Reduce: consensus.ReduceSum, Doc: "how many agents report"},
	}
}

// TestDeclaredMeasuresReachTheBundle: an algorithm's declared measures
// are reduced as declared and written as columns of metrics.jsonl and
// metrics.csv, with no change to the coordinator.
func TestDeclaredMeasuresReachTheBundle(t *testing.T) {
	reg := catalog.Default()
	exchange := null.Algorithm()
	counting := registry.Algorithm{
		Name: "counting", Summary: "exchange with two declared measures", New: exchange.New,
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			r, err := exchange.Build(p, env)
			return countingRun{r}, err
		},
	}
	if err := reg.RegisterAlgorithm(counting); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	s, err := scenarios.ParseWith(reg, []byte(`
agents: 5
graph: {topology: ring}
problem: {kind: least_squares, dim: 2}
algorithm: {name: counting}
rounds: 20
metrics: {every: 10}
runtime: {transport: chan}
output: {dir: `+out+`}
`), "counting.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(context.Background(), s, sim.Options{RunID: "counting"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "counting", "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if row["max_id"] != 4.0 || row["agents_reporting"] != 5.0 {
			t.Errorf("row %d: max_id %v, agents_reporting %v; want 4 and 5", lines, row["max_id"], row["agents_reporting"])
		}
		lines++
	}
	if lines != 3 {
		t.Errorf("%d rows, want rounds 0, 10 and 20", lines)
	}
	csv, err := os.ReadFile(filepath.Join(out, "counting", "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(csv), "\n"); !strings.HasSuffix(header, ",max_id,agents_reporting") {
		t.Errorf("metrics.csv header %q does not end with the declared measures", header)
	}
}
