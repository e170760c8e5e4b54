package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/slicing"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// roleScenarios are small runs of the algorithms whose agents hold
// different blocks or play roles (measured by their registry.Evaluator):
// a network-slicing node per agent, a zeroth-order server with oracle
// workers, an upper-level agent with task agents, data-parallel agents.
var roleScenarios = map[string]string{
	"slicing_alm": `agents: 6
graph: {topology: complete}
problem: {kind: slicing, example: true}
algorithm: {name: slicing_alm, eps: 0.05}
rounds: 200
metrics: {every: 50}
`,
	"zo_splm": `agents: 1
graph: {topology: complete}
problem: {kind: qcqp, n: 8, m: 1}
algorithm: {name: zo_splm, directions: 60, chunk: 7}
rounds: 20
metrics: {every: 10}
`,
	"tsp": `agents: 4
graph: {topology: star}
problem: {kind: bilevel_quad, dim: 3}
algorithm: {name: tsp, units: sum}
rounds: 100
metrics: {every: 50}
`,
	"penalty_vrasg": `agents: 3
graph: {topology: complete}
problem: {kind: constrained_logistic, dim: 5, samples: 40, core: 4}
algorithm: {name: penalty_vrasg, preset: 4ii}
rounds: 12
metrics: {every: 6}
`,
}

// roleRun is what one run leaves to compare: every agent's final
// iterate and the last metrics row without its wall-clock column.
type roleRun struct {
	x    [][]float64
	last map[string]any
	dir  string
}

// runRole runs the scenario src on transport with workers oracle
// workers and reads its bundle.
func runRole(t *testing.T, name, src, transport string, workers int) roleRun {
	t.Helper()
	out := t.TempDir()
	text := src + fmt.Sprintf("runtime: {transport: %s, workers: %d}\noutput: {dir: %s}\n", transport, workers, out)
	s, err := scenarios.Parse([]byte(text), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.ReplaceAll(name, "_", "-")
	if _, err := sim.Run(context.Background(), s, sim.Options{RunID: id}); err != nil {
		t.Fatalf("%s on %s with %d workers: %v", name, transport, workers, err)
	}
	dir := filepath.Join(out, id)
	raw, err := os.ReadFile(filepath.Join(dir, coordinator.FinalFile))
	if err != nil {
		t.Fatal(err)
	}
	var fin coordinator.FinalIterates
	if err := json.Unmarshal(raw, &fin); err != nil {
		t.Fatal(err)
	}
	var r roleRun
	r.dir = dir
	for _, a := range fin.Agents {
		if a.Round != s.Rounds {
			t.Fatalf("%s on %s: agent %d stopped at round %d of %d", name, transport, a.ID, a.Round, s.Rounds)
		}
		r.x = append(r.x, a.X)
	}
	f, err := os.Open(filepath.Join(dir, coordinator.MetricsJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r.last = nil
		if err := json.Unmarshal(sc.Bytes(), &r.last); err != nil {
			t.Fatal(err)
		}
	}
	delete(r.last, "elapsed_s")
	delete(r.last, "bytes") // frame sizes differ between transports
	return r
}

// sameRun fails unless got has the bits of want.
func sameRun(t *testing.T, what string, want, got roleRun) {
	t.Helper()
	if len(got.x) != len(want.x) {
		t.Fatalf("%s: %d agents' iterates, want %d", what, len(got.x), len(want.x))
	}
	for i := range want.x {
		if len(got.x[i]) != len(want.x[i]) {
			t.Fatalf("%s: agent %d has %d values, want %d", what, i, len(got.x[i]), len(want.x[i]))
		}
		for k := range want.x[i] {
			if math.Float64bits(got.x[i][k]) != math.Float64bits(want.x[i][k]) {
				t.Fatalf("%s: agent %d x[%d] = %v, want %v", what, i, k, got.x[i][k], want.x[i][k])
			}
		}
	}
	for k, v := range want.last {
		if g, ok := got.last[k]; !ok || fmt.Sprint(g) != fmt.Sprint(v) {
			t.Errorf("%s: last metrics row %s = %v, want %v", what, k, g, v)
		}
	}
}

// TestRolesBitIdenticalAcrossTransports: slicing_alm, zo_splm, tsp and
// penalty_vrasg give the same final iterates and the same measures, bit
// for bit, on channels, NATS in-process and NATS over TCP, and zo_splm
// also with 1, 2 and 4 oracle workers; slicing_alm's bundle holds the
// picture of the slice.
func TestRolesBitIdenticalAcrossTransports(t *testing.T) {
	for _, name := range []string{"slicing_alm", "zo_splm", "tsp", "penalty_vrasg"} {
		t.Run(name, func(t *testing.T) {
			src := roleScenarios[name]
			want := runRole(t, name, src, "chan", 0)
			for _, tr := range []string{"nats", "nats-tcp"} {
				sameRun(t, name+" on "+tr, want, runRole(t, name, src, tr, 0))
			}
			if name == "zo_splm" {
				for _, w := range []int{1, 2, 4} {
					sameRun(t, fmt.Sprintf("zo_splm on chan with %d workers", w), want, runRole(t, name, src, "chan", w))
				}
				sameRun(t, "zo_splm on nats with 2 workers", want, runRole(t, name, src, "nats", 2))
			}
			if name == "slicing_alm" {
				dot, err := os.ReadFile(filepath.Join(want.dir, slicing.SliceFile))
				if err != nil || !strings.HasPrefix(string(dot), "digraph slice {") {
					t.Errorf("%s: %v, %.40q", slicing.SliceFile, err, dot)
				}
			}
		})
	}
}
