package scenarios

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func parseMinimal(t *testing.T) *Scenario {
	t.Helper()
	s, err := Parse([]byte(minimal), filepath.Join("dir", "x.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSetValid(t *testing.T) {
	tests := []struct {
		set   string
		check func(s *Scenario) bool
	}{
		{"graph.p=0.3", func(s *Scenario) bool { return s.Graph.P == 0.3 }},
		{"algorithm.penalty=2", func(s *Scenario) bool { return almOf(s).Penalty != nil && *almOf(s).Penalty == 2 }},
		{"algorithm.m_y=.inf", func(s *Scenario) bool { return almOf(s).MY != nil && math.IsInf(*almOf(s).MY, 1) }},
		{"agents=16", func(s *Scenario) bool { return s.Agents == 16 }},
		{"seed=18446744073709551615", func(s *Scenario) bool { return s.Seed == math.MaxUint64 }},
		{"name=sweep-3", func(s *Scenario) bool { return s.Name == "sweep-3" }},
		{"edges.same_draw=true", func(s *Scenario) bool { return s.Edges.SameDraw }},
		{"problem.box=[-1, .inf]", func(s *Scenario) bool { return regOf(s).Box == Interval{-1, math.Inf(1)} }},
		{"problem.init.kind=zero", func(s *Scenario) bool { return s.Problem.Init.Kind == InitZero }},
		{"runtime.timeout=90s", func(s *Scenario) bool { return s.Runtime.Timeout.Std() == 90*time.Second }},
		{"runtime.nats_url=nats://10.0.0.1:4222", func(s *Scenario) bool { return s.Runtime.NATSURL == "nats://10.0.0.1:4222" }},
		{"graph={topology: grid, rows: 2, cols: 2}", func(s *Scenario) bool {
			return s.Graph.Topology == TopologyGrid && s.Graph.Rows == 2 && s.Graph.P == 1
		}},
		{" rounds = 7", func(s *Scenario) bool { return s.Rounds == 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			s := parseMinimal(t)
			if err := s.Set(tt.set); err != nil {
				t.Fatalf("Set(%q): %v", tt.set, err)
			}
			if !tt.check(s) {
				t.Errorf("Set(%q) gave %+v", tt.set, s)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("Validate after Set(%q): %v", tt.set, err)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		set  string
		want string
	}{
		{"graph.pp=0.3", `--set: unknown key "pp" in graph (did you mean "p"? allowed: topology, rows, cols, q, radius, file, k, period, p, p_range)`},
		{"grpah.p=0.3", `--set: unknown key "grpah" at top level (did you mean "graph"? allowed: name, seed, agents, graph, edges, problem, algorithm, rounds, metrics, runtime, faults, async, output, sweep)`},
		{"algorithm.lr=0.1", `--set: unknown key "lr" in algorithm (allowed: name, preset, schedule, safeguard, safeguard_every, dual_step, m_y, step, penalty, prox_weight, smoothing, c_step, c_smoothing, scale)`},
		{"algorithm.params.lr=0.1", `--set: unknown key "params" in algorithm (allowed: name, preset, schedule, safeguard, safeguard_every, dual_step, m_y, step, penalty, prox_weight, smoothing, c_step, c_smoothing, scale)`},
		{"algorithm.params.eta=0.1", `--set: algorithm.params.eta: renamed to algorithm.dual_step`},
		{"algorithm.tau_schedule=sqrt", `--set: algorithm.tau_schedule: renamed to algorithm.schedule`},
		{"graph.p.lo=0.1", `--set: graph.p.lo: graph.p is a value, not a section with keys`},
		{"graph.p=high", `--set: graph.p: expected a number, got string "high"`},
		{"agents=2.5", `--set: agents: expected an integer, got 2.5`},
		{"rounds=", `--set: rounds: expected an integer, got no value`},
		{"runtime.timeout=10", `--set: runtime.timeout: expected a duration such as 500ms, 5s or 10m, got 10`},
		{"problem.box=[1]", `--set: problem.box: expected a sequence [lo, hi] of two numbers, got a sequence of 1`},
		{"graph.p", `--set: "graph.p": expected key.path=value, e.g. graph.p=0.3`},
		{"=3", `--set: "=3": expected key.path=value, e.g. graph.p=0.3`},
		{"graph.p=[1", `--set: graph.p: value "[1" is not valid YAML: yaml: line 1: did not find expected ',' or ']'`},
		{"graph={p: 0.5, p_range: [0.1, 0.2]}", `--set: graph.p_range: give either p or p_range, not both (p is set at --set)`},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			s := parseMinimal(t)
			before := *s
			err := s.Set(tt.set)
			if err == nil {
				t.Fatalf("Set(%q) succeeded", tt.set)
			}
			checkErrors(t, err, []string{tt.want})
			if !reflect.DeepEqual(*s, before) {
				t.Errorf("Set(%q) failed but changed the scenario", tt.set)
			}
		})
	}
}

func TestSetPAndPRangeExclude(t *testing.T) {
	s := parseMinimal(t)
	if err := s.Set("graph.p_range=[0.1, 0.4]"); err != nil {
		t.Fatal(err)
	}
	if s.Graph.P != 0 || s.Graph.PRange == nil || *s.Graph.PRange != (Interval{0.1, 0.4}) {
		t.Fatalf("after p_range: p = %v, p_range = %v", s.Graph.P, s.Graph.PRange)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("graph.p=0.6"); err != nil {
		t.Fatal(err)
	}
	if s.Graph.P != 0.6 || s.Graph.PRange != nil {
		t.Fatalf("after p: p = %v, p_range = %v", s.Graph.P, s.Graph.PRange)
	}
	if err := s.Set("graph.p_range=[0.1, 0.4]"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("graph.p_range=null"); err != nil {
		t.Fatal(err)
	}
	if s.Graph.P != 1 || s.Graph.PRange != nil {
		t.Fatalf("after clearing p_range: p = %v, p_range = %v", s.Graph.P, s.Graph.PRange)
	}
}

func TestSetParamNullRestoresPreset(t *testing.T) {
	s := parseMinimal(t)
	if err := s.Set("algorithm.step=0.01"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("algorithm.step=null"); err != nil {
		t.Fatal(err)
	}
	if almOf(s).Step != nil {
		t.Errorf("step = %v after null, want nil (preset)", *almOf(s).Step)
	}
}

// An override may repair a value that is out of range in the file, and an
// out-of-range override is reported against --set.
func TestSetThenValidate(t *testing.T) {
	doc := "agents: 4\ngraph:\n  topology: ring\n  p: 1.5\nproblem: {kind: least_squares, dim: 3}\nalgorithm: {name: alm}\nrounds: 10\n"
	s, err := Parse([]byte(doc), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("graph.p=0.5"); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate after repairing graph.p: %v", err)
	}
	if err := s.Set("graph.p=2"); err != nil {
		t.Fatal(err)
	}
	checkErrors(t, s.Validate(), []string{`--set: graph.p: 2 is outside (0, 1]`})
}

func TestSetGraphFileRelativeToScenario(t *testing.T) {
	s := parseMinimal(t)
	if err := s.Set("graph.file=edges.txt"); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs(filepath.Join("dir", "edges.txt"))
	if s.Graph.File != want {
		t.Errorf("graph.file = %q, want %q", s.Graph.File, want)
	}
}

func TestLoadWithOverrides(t *testing.T) {
	s, err := LoadWith("quickstart.yaml", "rounds=50", "graph.p=0.9")
	if err != nil {
		t.Fatal(err)
	}
	if s.Rounds != 50 || s.Graph.P != 0.9 {
		t.Errorf("rounds = %d, p = %v", s.Rounds, s.Graph.P)
	}
	_, err = LoadWith("quickstart.yaml", "graph.p=7")
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("LoadWith with a bad override = %v, want ErrInvalid", err)
	}
}
