package scenarios

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
)

// sameEdges reports whether two edges sections are equal.
func sameEdges(a, b Edges) bool { return reflect.DeepEqual(a, b) }

const faultyEdges = `edges:
  model: gilbert_elliott
  gilbert_elliott: {p_gb: 0.1, p_bg: 0.4, p_good: 0.9, p_bad: 0.2}
  cuts:
    - edges: [[0, 1], [3, 2]]
      from: 10
      to: 20
    - {edges: [[1, 2]], from: 5}
  partitions:
    - groups: [[0, 1], [2]]
      from: 30
      to: 40
`

func TestParseEdgeFaults(t *testing.T) {
	s, err := Parse([]byte(minimal+faultyEdges), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	pGood := 0.9
	want := Edges{
		Model:          EdgeModelGilbertElliott,
		GilbertElliott: GilbertElliott{PGB: 0.1, PBG: 0.4, PGood: &pGood, PBad: 0.2},
		Cuts: Cuts{
			{Edges: EdgePairs{{0, 1}, {3, 2}}, From: 10, To: 20},
			{Edges: EdgePairs{{1, 2}}, From: 5},
		},
		Partitions: Partitions{{Groups: AgentGroups{{0, 1}, {2}}, From: 30, To: 40}},
	}
	if !sameEdges(s.Edges, want) {
		t.Errorf("edges = %+v\nwant %+v", s.Edges, want)
	}
	roundTrip(t, s)
	if err := s.Set("edges.cuts=[{edges: [[2, 3]], from: 1, to: 2}]"); err != nil {
		t.Fatal(err)
	}
	if len(s.Edges.Cuts) != 1 || s.Edges.Cuts[0].Edges[0] != [2]int{2, 3} {
		t.Errorf("after Set, cuts = %+v", s.Edges.Cuts)
	}
}

func TestValidateEdgeFaults(t *testing.T) {
	tests := []struct {
		name  string
		edges string
		want  []string
	}{
		{"unknown model", "edges: {model: gilbert}\n",
			[]string{`x.yaml:6:16: edges.model: "gilbert" is not one of bernoulli, gilbert_elliott`}},
		{"missing chain", "edges: {model: gilbert_elliott}\n",
			[]string{"x.yaml:6:8: edges.gilbert_elliott.p_gb: missing", "x.yaml:6:8: edges.gilbert_elliott.p_bg: missing"}},
		{"chain out of range", "edges:\n  model: gilbert_elliott\n  gilbert_elliott: {p_gb: 1.5, p_bg: 0, p_good: 0, p_bad: -0.1}\n",
			[]string{"x.yaml:8:27: edges.gilbert_elliott.p_gb: 1.5 is outside [0, 1]",
				"x.yaml:8:38: edges.gilbert_elliott.p_bg: 0 is outside (0, 1]",
				"x.yaml:8:49: edges.gilbert_elliott.p_good: 0 is outside (0, 1]",
				"x.yaml:8:59: edges.gilbert_elliott.p_bad: -0.1 is outside [0, 1]"}},
		{"chain without the model", "edges: {gilbert_elliott: {p_gb: 0.1, p_bg: 0.2}}\n",
			[]string{"x.yaml:6:26: edges.gilbert_elliott: only used with edges.model gilbert_elliott, not bernoulli"}},
		{"cut rounds", "edges:\n  cuts: [{edges: [[0, 1]], from: 5, to: 5}, {edges: [[0, 1]], from: -1}]\n",
			[]string{"x.yaml:7:41: edges.cuts[0].to: 5 must be greater than from = 5",
				"x.yaml:7:69: edges.cuts[1].from: must be a round >= 0, got -1"}},
		{"cut ids", "edges:\n  cuts: [{edges: [[0, 4], [2, 2]], from: 0}]\n",
			[]string{"x.yaml:7:19: edges.cuts[0].edges[0]: agent 4 is outside [0, 4)",
				"x.yaml:7:27: edges.cuts[0].edges[1]: [2, 2] is a self loop"}},
		{"cut without edges", "edges:\n  cuts: [{from: 0, to: 3}]\n",
			[]string{"x.yaml:7:10: edges.cuts[0].edges: missing or empty"}},
		{"cut pair shape", "edges:\n  cuts: [{edges: [[0, 1, 2], 3], from: 0}]\n",
			[]string{"x.yaml:7:19: edges.cuts[0].edges[0]: expected a pair [i, j] of agent ids, got 3 values",
				"x.yaml:7:30: edges.cuts[0].edges[1]: expected a pair [i, j] of agent ids, got 3"}},
		{"cuts not a list", "edges:\n  cuts: {edges: [[0, 1]]}\n",
			[]string{"x.yaml:7:9: edges.cuts: expected a sequence of {edges, from, to}, got a mapping"}},
		{"partition groups", "edges:\n  partitions: [{groups: [[0, 1], [1, 7]], from: 3, to: 9}]\n",
			[]string{"x.yaml:7:34: edges.partitions[0].groups[1]: agent 7 is outside [0, 4)",
				"x.yaml:7:34: edges.partitions[0].groups[1]: agent 1 is already in group 0"}},
		{"unknown key in a cut", "edges:\n  cuts: [{edge: [[0, 1]], from: 0}]\n",
			[]string{`unknown key "edge" in edges.cuts[0] (did you mean "edges"?`}},
		{"missing replay", "edges: {replay: nosuch.edges}\n",
			[]string{"x.yaml:6:17: edges.replay: cannot read edge recording"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(minimal+tt.edges), "x.yaml")
			if err == nil {
				err = s.Validate()
			}
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want an invalid-scenario error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestBuildEdgeProcess checks the process and expected graph each model
// builds: Bernoulli keeps p_ij, Gilbert-Elliott sets the stationary
// presence probability, and the faults are layered on top.
func TestBuildEdgeProcess(t *testing.T) {
	s, err := Parse([]byte(minimal+faultyEdges), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	piBad := 0.1 / (0.1 + 0.4)
	for _, e := range st.Graph.Edges {
		if want := (1-piBad)*0.9 + piBad*0.2; math.Abs(e.P-want) > 1e-12 {
			t.Errorf("expected p of {%d,%d} = %v, want pi_good p_good + pi_bad p_bad = %v", e.I, e.J, e.P, want)
		}
	}
	f, ok := st.Process.(*graph.Faulty)
	if !ok {
		t.Fatalf("process is %T, want *graph.Faulty", st.Process)
	}
	if _, ok := f.Base().(*graph.GilbertElliott); !ok {
		t.Fatalf("base process is %T, want *graph.GilbertElliott", f.Base())
	}
	// Ring 0-1-2-3-0; the partition's groups are {0,1}, {2} and the
	// unlisted {3}, so only {0,1} stays inside a group.
	for r := 0; r < 50; r++ {
		for _, e := range st.Graph.Edges {
			pair := [2]int{e.I, e.J}
			down := r >= 10 && r < 20 && (pair == [2]int{0, 1} || pair == [2]int{2, 3}) ||
				r >= 5 && pair == [2]int{1, 2} ||
				r >= 30 && r < 40 && pair != [2]int{0, 1}
			if got := f.Down(r, e.J, e.I); got != down {
				t.Fatalf("round %d edge {%d,%d}: down %v, want %v", r, e.I, e.J, got, down)
			}
			for d := 0; d < 3; d++ {
				if got, want := f.Active(r, d, e.I, e.J), !down && f.Base().Active(r, d, e.I, e.J); got != want {
					t.Fatalf("round %d draw %d edge {%d,%d}: active %v, want %v", r, d, e.I, e.J, got, want)
				}
			}
		}
	}

	// Bernoulli keeps the graph's p_ij.
	b := parseMinimal(t)
	if err := b.Set("graph.p=0.6"); err != nil {
		t.Fatal(err)
	}
	bst, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if bst.Graph.Edges[0].P != 0.6 {
		t.Errorf("bernoulli expected p = %v, want 0.6", bst.Graph.Edges[0].P)
	}
	if _, ok := bst.Process.(graph.UniformBernoulli); !ok {
		t.Errorf("bernoulli process is %T, want graph.UniformBernoulli", bst.Process)
	}
}

func TestBuildRejectsCutOfMissingEdge(t *testing.T) {
	s, err := Parse([]byte(minimal+"edges:\n  cuts:\n    - {edges: [[0, 1], [0, 2]], from: 0}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Build()
	want := "x.yaml:8:24: edges.cuts[0].edges[1]: [0, 2] is not an edge of the graph (ring on 4 agents)"
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Build error = %v, want %q", err, want)
	}
}

// TestRecordEdgesReplay records a faulty bursty run, replays it through
// edges.replay and checks every (t, d, i, j) of the run agrees; a
// recording shorter than the run or from another graph is rejected.
func TestRecordEdgesReplay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	writeFile(t, path, strings.Replace(minimal, "rounds: 10", "rounds: 200", 1)+faultyEdges)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := st.RecordEdges(&buf); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "run.edges"), buf.String())
	if err := s.Set("edges.replay=run.edges"); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "run.edges"); s.Edges.Replay != want {
		t.Fatalf("edges.replay = %q, want it anchored at the scenario: %q", s.Edges.Replay, want)
	}
	rst, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rst.Process.(*graph.Replay); !ok {
		t.Fatalf("process is %T, want *graph.Replay", rst.Process)
	}
	if !reflect.DeepEqual(rst.Graph.Edges, st.Graph.Edges) {
		t.Errorf("replayed run has expected graph %v, recorded run %v", rst.Graph.Edges, st.Graph.Edges)
	}
	for r := 0; r < s.Rounds; r++ {
		for d := 0; d < 3; d++ {
			for _, e := range st.Graph.Edges {
				if got, want := rst.Process.Active(r, d, e.J, e.I), st.Process.Active(r, d, e.I, e.J); got != want {
					t.Fatalf("round %d draw %d edge {%d,%d}: replay %v, recorded %v", r, d, e.I, e.J, got, want)
				}
			}
		}
	}

	longer := *s
	longer.Rounds = 201
	if _, err := longer.Build(); err == nil || !strings.Contains(err.Error(), "holds 200 rounds x 3 draws; the run needs 201 rounds x 3 draws") {
		t.Errorf("Build with a short recording: %v", err)
	}
	other := *s
	if err := other.Set("graph.topology=complete"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Build(); err == nil || !strings.Contains(err.Error(), "edges.replay") || !strings.Contains(err.Error(), "recorded on a graph with 4 agents and 4 edges") {
		t.Errorf("Build with another graph: %v", err)
	}
}

// runLockstep builds the shipped scenario name with the overrides and runs
// its agents in lockstep for the given rounds, checking the exchange is
// symmetric (both endpoints agree on every edge), and returns the
// consensus error (1/N) sum_i ||x_i - xbar||^2 after each round in at.
func runLockstep(t *testing.T, name string, rounds int, at []int, overrides ...string) []float64 {
	t.Helper()
	s, err := LoadShipped(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range overrides {
		if err := s.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	agents, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	d, err := lockstep.New(agents, lockstep.Symmetric())
	if err != nil {
		t.Fatal(err)
	}
	var errs []float64
	done := 0
	for _, r := range append(at, rounds) {
		if err := d.Run(done, r-done); err != nil {
			t.Fatal(err)
		}
		done = r
		errs = append(errs, consensusError(agents))
	}
	return errs[:len(at)]
}

func consensusError(agents []consensus.Agent) float64 {
	var xs [][]float64
	for _, a := range agents {
		xs = append(xs, a.Report().X)
	}
	mean := make([]float64, len(xs[0]))
	for _, x := range xs {
		for k, v := range x {
			mean[k] += v / float64(len(xs))
		}
	}
	var sum float64
	for _, x := range xs {
		for k, v := range x {
			sum += (v - mean[k]) * (v - mean[k])
		}
	}
	return sum / float64(len(xs))
}

func TestShippedBurstyRuns(t *testing.T) {
	ce := runLockstep(t, "bursty", 300, []int{300})
	if !(ce[0] >= 0) || math.IsInf(ce[0], 0) {
		t.Fatalf("consensus error after 300 rounds = %v", ce[0])
	}
	s, err := LoadShipped("bursty")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	ge, ok := st.Process.(*graph.GilbertElliott)
	if !ok {
		t.Fatalf("bursty process is %T, want *graph.GilbertElliott", st.Process)
	}
	if b := ge.MeanBurst(); b < 15 || b > 25 {
		t.Errorf("bursty mean burst %v rounds, want about 20", b)
	}
}

// TestShippedPartitionHeals runs partition_heals in lockstep: no edge
// joins the halves while the partition holds, the consensus error grows
// over the partition and shrinks again after it heals.
func TestShippedPartitionHeals(t *testing.T) {
	s, err := LoadShipped("partition_heals")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := s.Edges.Partitions[0]
	crossing := 0
	for r := p.From - 50; r < p.To+50; r++ {
		for _, e := range st.Graph.Edges {
			if (e.I < 4) == (e.J < 4) {
				continue
			}
			active := st.Process.Active(r, graph.DrawDual, e.I, e.J)
			if active && r >= p.From && r < p.To {
				t.Fatalf("round %d: edge {%d,%d} joins the halves during the partition", r, e.I, e.J)
			}
			if active {
				crossing++
			}
		}
	}
	if crossing == 0 {
		t.Fatal("no edge joins the halves outside the partition either")
	}
	ce := runLockstep(t, "partition_heals", p.To+2000, []int{p.From, p.To, p.To + 2000})
	before, cut, healed := ce[0], ce[1], ce[2]
	if !(cut > 2*before) {
		t.Errorf("consensus error %.3g at the partition, %.3g when it heals: want it to grow", before, cut)
	}
	if !(healed < cut/2) {
		t.Errorf("consensus error %.3g when the partition heals, %.3g 2000 rounds later: want it to fall", cut, healed)
	}
	t.Logf("consensus error: %.3g at round %d, %.3g at %d, %.3g at %d", before, p.From, cut, p.To, healed, p.To+2000)
}

func TestRecordEdgesRejectsBadWriter(t *testing.T) {
	s := parseMinimal(t)
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // writes now fail
	if err := st.RecordEdges(f); err == nil || !strings.Contains(err.Error(), "scenarios: x: graph: record edges") {
		t.Errorf("RecordEdges to a closed file: %v", err)
	}
}
