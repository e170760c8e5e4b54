package sim_test

import (
	"context"
	"fmt"
	"os"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

import (
	"strings"
	"testing"
)

// plainDGD is decentralized gradient descent, the example of
// docs/extending.md: in round t agent i sends x_i to its neighbours whose
// edge is present (graph's common randomness: both ends know without
// talking), then takes
//
//	x_i <- x_i + sum_{j present} w (x_j - x_i) - alpha grad f_i(x_i).
type Params struct {
	Step   float64 `yaml:"step" doc:"step alpha > 0"`
	Weight float64 `yaml:"weight" doc:"edge weight w in (0, 1/max degree)"`
}

func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if !(p.Step > 0) {
		errs.Add("step", "must be > 0, got %v", p.Step)
	}
	if !(p.Weight > 0 && p.Weight < 1) {
		errs.Add("weight", "must be in (0, 1), got %v", p.Weight)
	}
	return errs.Err()
}

type dgdAgent struct {
	p      Params
	id     int
	env    *registry.Env
	f      objective.Local
	x, g   []float64
	rounds int
}

func (a *dgdAgent) ID() int        { return a.id }
func (a *dgdAgent) Phases(int) int { return 1 }
func (a *dgdAgent) present(t int) []int {
	var js []int
	for _, j := range a.env.Graph.Neighbors(a.id) {
		if a.env.Process.Active(t, int(graph.StreamDual), a.id, j) {
			js = append(js, j)
		}
	}
	return js
}

func (a *dgdAgent) Send(t, _ int) consensus.Outbox {
	var out consensus.Outbox
	for _, j := range a.present(t) {
		out.Msgs = append(out.Msgs, consensus.Msg{From: a.id, To: j, Round: t, Data: a.x})
		out.Expect = append(out.Expect, j)
	}
	return out
}

func (a *dgdAgent) Receive(t, _ int, in consensus.Inbox) error {
	a.f.Grad(a.x, a.g)
	next := make([]float64, len(a.x))
	for k, v := range a.x {
		next[k] = v - float64(a.p.Step*a.g[k])
	}
	for _, m := range in.Msgs { // a missing x_j contributes nothing
		for k, v := range m.Data {
			next[k] += float64(a.p.Weight * (v - a.x[k]))
		}
	}
	a.x, a.rounds = next, a.rounds+1
	return nil
}

func (a *dgdAgent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.rounds, X: append([]float64(nil), a.x...)}
}

type dgdRun struct {
	p   Params
	env *registry.Env
}

func (r dgdRun) Agent(i int) (consensus.Agent, error) {
	f := r.env.Problem.(registry.Locals).Local(i)
	return &dgdAgent{p: r.p, id: i, env: r.env, f: f, x: r.env.Init(i), g: make([]float64, f.Dim())}, nil
}

func (r dgdRun) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.p.Step}, {Name: "w", Value: r.p.Weight}}
}

var plainDGDAlgorithm = registry.Algorithm{
	Name:    "plain_dgd",
	Summary: "decentralized gradient descent with a constant edge weight",
	New:     func() registry.Params { return &Params{Step: 0.05, Weight: 0.3} },
	Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
		return dgdRun{*p.(*Params), env}, nil
	},
	Needs:    []string{registry.CapLocals},
	NeedsDoc: "local objectives f_i with gradients",
}

// Register your own algorithm beside the shipped ones and run it from a
// scenario, as docs/extending.md explains.
func Example_customAlgorithm() {
	reg := catalog.Default()
	if err := reg.RegisterAlgorithm(plainDGDAlgorithm); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := os.MkdirTemp("", "consim-example")
	defer os.RemoveAll(out)
	s, err := scenarios.ParseWith(reg, []byte(`
agents: 6
graph: {topology: ring, p: 0.8}
problem: {kind: least_squares, dim: 4, reg: 0.1}
algorithm: {name: plain_dgd, step: 0.05}
rounds: 3000
metrics: {every: 500}
runtime: {transport: chan}
output: {dir: `+out+`}
`), "plain_dgd.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "plain-dgd"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Status, sum.Params[0].Name, sum.Params[0].Value)
	// A constant step leaves DGD a bias of order alpha: close, not exact.
	fmt.Println("optimality gap below 1e-2:", sum.Final.OptGap < 1e-2)
	// Output:
	// ok alpha 0.05
	// optimality gap below 1e-2: true
}

// TestGuideCodeIsCompiled: every Go block of docs/extending.md stands
// verbatim in this file or in example_problem_test.go, so the guide shows
// the code that Example_customAlgorithm and Example_problemFromFiles run
// (cmd/consim's TestDocs compiles the page's blocks on their own).
func TestGuideCodeIsCompiled(t *testing.T) {
	guide, err := os.ReadFile("../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples strings.Builder
	for _, name := range []string{"example_extend_test.go", "example_problem_test.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		examples.Write(b)
	}
	blocks := strings.Split(string(guide), "```go\n")[1:]
	if len(blocks) < 10 {
		t.Fatalf("docs/extending.md has %d Go blocks, want the 10 of the two examples", len(blocks))
	}
	for i, b := range blocks {
		code, _, ok := strings.Cut(b, "```")
		if !ok || !strings.Contains(examples.String(), code) {
			t.Errorf("Go block %d of docs/extending.md is in neither sim/example_extend_test.go nor sim/example_problem_test.go:\n%s", i+1, code)
		}
	}
}
