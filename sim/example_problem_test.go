package sim_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

import (
	"encoding/json"
	"math"
	"os"
)

// AgentFilesParams is the problem block of the agent_files kind, the
// second example of docs/extending.md: ridge least squares over data
// that each agent holds in a CSV file of its own.
type AgentFilesParams struct {
	Dir   registry.Path `yaml:"dir" doc:"directory of agent-<i>.csv, one file per agent, with a header and the label first (relative to the scenario)"`
	Reg   float64       `yaml:"reg" doc:"ridge weight lambda >= 0 of (lambda/2)||x||^2"`
	Batch int           `yaml:"batch" doc:"minibatch size b >= 1, at most each agent's rows"`
}

func (p *AgentFilesParams) Validate() error {
	var errs registry.FieldErrors
	if p.Dir == "" {
		errs.Add("dir", "required: a directory holding agent-0.csv, agent-1.csv, ...")
	}
	errs.Check("reg", &p.Reg, registry.NonNegative)
	if p.Batch < 1 {
		errs.Add("batch", "must be >= 1, got %d", p.Batch)
	}
	return errs.Err()
}

// agentFiles is an instance: f_i is the ridge least squares of agent i's
// rows, f = (1/N) sum_i f_i, its optimum solved once by objective.
type agentFiles struct{ p *objective.Problem }

func (a agentFiles) Dim() int                             { return a.p.Dim() }
func (a agentFiles) Central() (*objective.Problem, error) { return a.p, nil }
func (a agentFiles) Local(i int) objective.Local          { return a.p.Locals[i] }
func (a agentFiles) Box() objective.Box                   { return a.p.Box }

var _ registry.Locals = agentFiles{}

func buildAgentFiles(params registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
	p := params.(*AgentFilesParams)
	shards := make([]objective.Shard, env.N)
	for i := range shards {
		name := filepath.Join(string(p.Dir), fmt.Sprintf("agent-%d.csv", i))
		d, err := dataset.LoadCSV(name, dataset.CSVOptions{Header: true})
		if err != nil {
			return nil, registry.FieldErrors{{Key: "dir", Msg: err.Error()}}
		}
		shards[i] = objective.Shard{A: d.X, B: d.Y, Dim: d.Dim}
	}
	prob, err := objective.FromShards(objective.KindLeastSquares, shards,
		objective.GivenOptions{Name: string(p.Dir), Reg: p.Reg, Batch: p.Batch})
	if err != nil {
		return nil, err
	}
	return agentFiles{prob}, nil
}

var agentFilesProblem = registry.Problem{
	Kind:    "agent_files",
	Summary: "ridge least squares over one CSV file per agent",
	New:     func() registry.Params { return &AgentFilesParams{Batch: 10} },
	Build:   buildAgentFiles,
	Offers:  []string{registry.CapLocals},
}

// runAgentFiles runs the ALM over the 4 agents' files in dir, on channels,
// and writes the bundle under out.
func runAgentFiles(dir, out string) (*coordinator.Summary, error) {
	reg := catalog.Default()
	if err := reg.RegisterProblem(agentFilesProblem); err != nil {
		return nil, err
	}
	s, err := scenarios.ParseWith(reg, []byte(`
agents: 4
graph: {topology: ring, p: 0.7}
problem: {kind: agent_files, dir: `+dir+`}
algorithm: {name: alm}
rounds: 20000
metrics: {every: 1000}
runtime: {transport: chan}
output: {dir: `+out+`}
`), "agent_files.yaml")
	if err != nil {
		return nil, err
	}
	return sim.Run(context.Background(), s, sim.Options{RunID: "agent-files"})
}

// Add a problem kind that reads each agent's data from a file of its own,
// as docs/extending.md explains: the files are quickstart's rows over 4
// agents, written as consim data export --format csv writes them, and the
// optimum the new kind solves is the one the export reports.
func Example_problemFromFiles() {
	tmp, err := os.MkdirTemp("", "consim-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "data")
	s, err := scenarios.LoadWith("../scenarios/quickstart.yaml", "agents=4")
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := s.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	exported, err := sim.ExportData(st, dir, dataset.FormatCSV)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := runAgentFiles(dir, filepath.Join(tmp, "results"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var manifest struct {
		FStar float64 `json:"f_star"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "problem.json"))
	if err == nil {
		err = json.Unmarshal(b, &manifest)
	}
	if err != nil || manifest.FStar != exported.FStar {
		fmt.Println("problem.json:", err)
		return
	}
	// quickstart's box [-10, 10] is inactive at its optimum, so the
	// unconstrained ridge problem of the files has the same f*.
	fstar := sum.Final.ObjValue - sum.Final.OptGap
	fmt.Println(sum.Status, "f* as exported:", math.Abs(fstar-exported.FStar) <= 1e-9*math.Abs(exported.FStar))
	fmt.Println("optimality gap below 1e-3:", sum.Final.OptGap < 1e-3)
	// Output:
	// ok f* as exported: true
	// optimality gap below 1e-3: true
}
