package scenarios

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultsFilled(t *testing.T) {
	s := parseMinimal(t)
	want := Default()
	want.Name = "x"
	want.Agents = 4
	want.Graph.Topology = TopologyRing
	want.Problem.Kind = ProblemLeastSquares
	want.Problem.Dim = 3
	want.Algorithm.Name = AlgorithmALM
	want.Rounds = 10
	got := *s
	got.src = source{}
	if !reflect.DeepEqual(got, *want) {
		t.Errorf("parsed minimal scenario\n got %+v\nwant %+v", got, *want)
	}
	// Spot-check the documented values themselves.
	checks := []struct {
		key  string
		got  any
		want any
	}{
		{"seed", s.Seed, uint64(1)},
		{"graph.p", s.Graph.P, 1.0},
		{"edges.model", s.Edges.Model, "bernoulli"},
		{"algorithm.preset", s.Algorithm.Preset, "practical"},
		{"algorithm.safeguard", s.Algorithm.Safeguard, "global"},
		{"algorithm.safeguard_every", s.Algorithm.SafeguardEvery, 10},
		{"metrics.every", s.Metrics.Every, 10},
		{"metrics.tolerance", s.Metrics.Tolerance, 0.0},
		{"runtime.transport", s.Runtime.Transport, "nats"},
		{"runtime.phase_deadline", s.Runtime.PhaseDeadline.Std(), 5 * time.Second},
		{"runtime.agent_timeout", s.Runtime.AgentTimeout.Std(), 30 * time.Second},
		{"runtime.timeout", s.Runtime.Timeout.Std(), 10 * time.Minute},
		{"output.dir", s.Output.Dir, "results"},
		{"problem.box", s.Problem.Box, Interval{math.Inf(-1), math.Inf(1)}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.key, c.got, c.want)
		}
	}
	if err := s.Validate(); err != nil {
		t.Errorf("minimal scenario does not validate: %v", err)
	}
}

// A value written in the file wins over its default, including zero.
func TestExplicitZeroIsKept(t *testing.T) {
	s, err := Parse([]byte("seed: 0\nagents: 2\ngraph: {topology: path}\nproblem: {kind: logistic, dim: 2, noise: 0}\nalgorithm: {name: alm}\nrounds: 1\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != 0 || s.Problem.Noise != 0 {
		t.Errorf("seed = %d, noise = %v; want explicit zeros", s.Seed, s.Problem.Noise)
	}
}

func TestDefaultsDocCoversEveryKey(t *testing.T) {
	keys := leafKeys(reflect.TypeFor[Scenario](), "")
	doc := DefaultsDoc()
	lines := strings.Split(strings.TrimSpace(doc), "\n")
	if len(lines) != len(keys)+1 {
		t.Errorf("DefaultsDoc has %d lines, want a header and %d keys", len(lines), len(keys))
	}
	for i, k := range keys {
		if _, ok := keyDocs[k]; !ok {
			t.Errorf("key %s has no entry in keyDocs", k)
		}
		if i+1 < len(lines) && strings.Fields(lines[i+1])[0] != k {
			t.Errorf("DefaultsDoc line %d is %q, want key %s", i+1, lines[i+1], k)
		}
	}
	if len(keyDocs) != len(keys) {
		t.Errorf("keyDocs has %d entries for %d keys (stale entries?)", len(keyDocs), len(keys))
	}
	for _, want := range []string{
		"graph.p                       1 ",
		"runtime.phase_deadline        5s ",
		"problem.box                   [-.inf, .inf] ",
		"agents                        required ",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("DefaultsDoc lacks %q:\n%s", want, doc)
		}
	}
}
