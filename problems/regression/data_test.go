package regression_test

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/scenarios"
)

// csvRows writes a small least-squares data set as CSV with a header:
// y = 2 x1 - x2 + 0.5 + noise-free wobble, 37 rows (uneven over 8
// agents).
func csvRows(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("x1,x2,x3,y\n")
	for k := range 37 {
		x1, x2, x3 := math.Sin(float64(k)), math.Cos(float64(3*k)), float64(k%5)/5
		y := 2*x1 - x2 + 0.5*x3 + 0.1*math.Sin(float64(7*k))
		b.WriteString(strings.Join([]string{fmtF(x1), fmtF(x2), fmtF(x3), fmtF(y)}, ",") + "\n")
	}
	path := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fmtF(v float64) string { return strings.TrimRight(strings.TrimRight(fmtG(v), "0"), ".") }

func fmtG(v float64) string { return strconvFormat(v) }

// TestCSVDataShardsOverAgents: a CSV file loads, shards over 8 agents
// (unevenly: 37 rows) and runs; with row weighting f, and so f*, do not
// depend on the number of agents or the sharding.
func TestCSVDataShardsOverAgents(t *testing.T) {
	dir := t.TempDir()
	csvRows(t, dir)
	src := func(agents int, shard string) string {
		return "agents: " + itoa(agents) + `
graph: {topology: ring, p: 0.8}
problem:
  kind: least_squares
  batch: 2
  reg: 0.01
  data: {path: rows.csv, header: true, label: y, shard: ` + shard + `}
algorithm: {name: alm}
rounds: 30
runtime: {transport: chan}
`
	}
	var fstars []float64
	for _, c := range []struct {
		agents int
		shard  string
	}{{1, "contiguous"}, {8, "contiguous"}, {8, "random"}, {3, "column:x3"}} {
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(src(c.agents, c.shard)), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := scenarios.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Build()
		if err != nil {
			t.Fatalf("%d agents, %s: %v", c.agents, c.shard, err)
		}
		if st.Env.Problem.Dim() != 3 {
			t.Fatalf("dim %d, want the file's 3 features", st.Env.Problem.Dim())
		}
		p, err := st.Problem()
		if err != nil {
			t.Fatal(err)
		}
		fstars = append(fstars, p.FStar)
		agents, err := st.Agents()
		if err != nil {
			t.Fatal(err)
		}
		d, err := lockstep.New(agents)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(0, s.Rounds); err != nil {
			t.Fatal(err)
		}
	}
	for k, f := range fstars[1:] {
		if math.Abs(f-fstars[0]) > 1e-12*(1+math.Abs(fstars[0])) {
			t.Errorf("case %d: f* = %.17g, one agent's f* = %.17g", k+1, f, fstars[0])
		}
	}
}

// TestLIBSVMA9A: the a9a file ships-beside loads, shards over 8 agents and
// runs a few rounds of the ALM on its logistic problem.
func TestLIBSVMA9A(t *testing.T) {
	const a9a = "../../../shared/data/a9a/a9a.gz"
	if _, err := os.Stat(a9a); err != nil {
		t.Skipf("a9a not found at %s: %v", a9a, err)
	}
	abs, _ := filepath.Abs(a9a)
	s, err := scenarios.Parse([]byte(`agents: 8
graph: {topology: ring, p: 0.7}
problem: {kind: logistic, reg: 0.001, batch: 10, data: {path: `+abs+`, shard: random}}
algorithm: {name: alm}
rounds: 20
`), "a9a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if n := st.Env.Problem.Dim(); n != 123 {
		t.Fatalf("a9a has %d features, want 123", n)
	}
	agents, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	d, err := lockstep.New(agents)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Run(0, s.Rounds); err != nil {
		t.Fatal(err)
	}
}

// TestDataErrors: bad data blocks name the key and what is allowed; a
// malformed file names its line.
func TestDataErrors(t *testing.T) {
	dir := t.TempDir()
	csvRows(t, dir)
	bad := filepath.Join(dir, "bad.svm")
	if err := os.WriteFile(bad, []byte("1 1:0.5\n-1 0:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "agents: 2\ngraph: {topology: path}\nalgorithm: {name: alm}\nrounds: 5\n"
	for _, c := range []struct{ problem, want string }{
		{"{kind: least_squares, data: {path: rows.csv, header: true, label: y, shard: sideways}}", `problem.data.shard: "sideways" is not one of contiguous, random, column:NAME`},
		{"{kind: least_squares, data: {path: rows.csv, header: true, label: y, weighting: some}}", `problem.data.weighting: "some" is not one of rows, agents`},
		{"{kind: least_squares, noise: 0.3, data: {path: rows.csv, header: true, label: y}}", "problem.noise: only applies to generated data"},
		{"{kind: least_squares, dim: 5, data: {path: rows.csv, header: true, label: y}}", "problem.dim: 5 differs from the 3 features"},
		{"{kind: least_squares, data: {path: bad.svm}}", "bad.svm:2"},
		{"{kind: least_squares, data: {path: missing.svm}}", "missing.svm"},
		{"{kind: logistic, reg: 0.1, data: {path: rows.csv, header: true, label: y}}", "logistic needs labels in {-1, +1} or {0, 1}"},
	} {
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(base+"problem: "+c.problem+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := scenarios.Load(path)
		if err == nil {
			_, err = s.Build()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.problem, err, c.want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func strconvFormat(v float64) string { return strconv.FormatFloat(v, 'f', 12, 64) }

// TestDataScenarioResolvedForm: the resolved form of a data-file scenario
// (what consim validate prints) leaves out the generator's keys and dim,
// which the file gives, parses back to the same scenario, and the memory
// estimate takes the file's 3 features; a generated scenario keeps them.
func TestDataScenarioResolvedForm(t *testing.T) {
	dir := t.TempDir()
	csvRows(t, dir)
	path := filepath.Join(dir, "s.yaml")
	src := "agents: 4\ngraph: {topology: ring}\nproblem: {kind: least_squares, reg: 0.01, data: {path: rows.csv, header: true, label: y}}\nalgorithm: {name: alm}\nrounds: 10\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"dim:", "samples_per_agent:", "noise:", "heterogeneity:"} {
		if strings.Contains(string(out), key) {
			t.Errorf("resolved form holds %s, which does not apply to a data file:\n%s", key, out)
		}
	}
	again, err := scenarios.Parse(out, path)
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := again.Marshal(); string(back) != string(out) {
		t.Errorf("resolved form does not parse back to itself:\n%s\nvs\n%s", out, back)
	}
	e, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim != 3 || e.DataFloats != 10*4 {
		t.Errorf("estimate: dim %d, %g data values per agent; want the file's 3 features and ceil(37/4) rows of 4 values", e.Dim, e.DataFloats)
	}
	gen, err := scenarios.Parse([]byte("agents: 4\ngraph: {topology: ring}\nproblem: {kind: least_squares, dim: 5}\nalgorithm: {name: alm}\nrounds: 10\n"), "g.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, _ = gen.Marshal()
	for _, key := range []string{"dim: 5", "samples_per_agent: 100", "noise: 0.1", "heterogeneity: 1"} {
		if !strings.Contains(string(out), key) {
			t.Errorf("generated scenario's resolved form lacks %q:\n%s", key, out)
		}
	}
}
