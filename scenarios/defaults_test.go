package scenarios

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/problems/regression"
)

// almOf is the ALM block of s.
func almOf(s *Scenario) *alm.Params { return s.Algorithm.Params.(*alm.Params) }

// regOf is the regression problem block of s.
func regOf(s *Scenario) *regression.Params { return s.Problem.Params.(*regression.Params) }

func TestDefaultsFilled(t *testing.T) {
	s := parseMinimal(t)
	want := Default()
	want.Name = "x"
	want.Agents = 4
	want.Graph.Topology = TopologyRing
	if err := want.Set("problem.kind=least_squares"); err != nil {
		t.Fatal(err)
	}
	if err := want.Set("problem.dim=3"); err != nil {
		t.Fatal(err)
	}
	if err := want.Set("algorithm.name=alm"); err != nil {
		t.Fatal(err)
	}
	want.Rounds = 10
	got := *s
	got.src, want.src = source{}, source{}
	got.reg, want.reg = nil, nil
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
		{"algorithm.preset", almOf(s).Preset, "practical"},
		{"algorithm.safeguard", almOf(s).Safeguard, "global"},
		{"algorithm.safeguard_every", almOf(s).SafeguardEvery, 10},
		{"metrics.every", s.Metrics.Every, 10},
		{"metrics.tolerance", s.Metrics.Tolerance, 0.0},
		{"runtime.transport", s.Runtime.Transport, "nats"},
		{"runtime.phase_deadline", s.Runtime.PhaseDeadline.Std(), 5 * time.Second},
		{"runtime.agent_timeout", s.Runtime.AgentTimeout.Std(), 30 * time.Second},
		{"runtime.timeout", s.Runtime.Timeout.Std(), 10 * time.Minute},
		{"output.dir", s.Output.Dir, "results"},
		{"problem.box", regOf(s).Box, Interval{math.Inf(-1), math.Inf(1)}},
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
	if s.Seed != 0 || regOf(s).Noise != 0 {
		t.Errorf("seed = %d, noise = %v; want explicit zeros", s.Seed, regOf(s).Noise)
	}
}

func TestDefaultsDocCoversEveryKey(t *testing.T) {
	keys := leafKeys(reflect.TypeFor[Scenario](), "")
	doc := DefaultsDoc()
	lines := strings.Split(strings.TrimSpace(doc), "\n")[1:]
	// The fixed keys come in schema order; the registered algorithms' and
	// problems' keys follow algorithm.name and problem.init.scale.
	k := 0
	for _, l := range lines {
		if k < len(keys) && strings.Fields(l)[0] == keys[k] {
			k++
		}
	}
	if k != len(keys) {
		t.Errorf("DefaultsDoc lists %d of the %d fixed keys in order; first missing: %s", k, len(keys), keys[k])
	}
	for _, k := range keys {
		if _, ok := keyDocs[k]; !ok {
			t.Errorf("key %s has no entry in keyDocs", k)
		}
	}
	if len(keyDocs) != len(keys) {
		t.Errorf("keyDocs has %d entries for %d keys (stale entries?)", len(keyDocs), len(keys))
	}
	reg := catalog.Default()
	for _, name := range reg.Algorithms() {
		a, _ := reg.Algorithm(name)
		v := reflect.ValueOf(a.New()).Elem()
		for _, key := range leafKeys(v.Type(), "algorithm") {
			if f := structFieldAt(v.Type(), strings.TrimPrefix(key, "algorithm.")); f.Tag.Get("doc") == "" {
				t.Errorf("%s: %s has no doc tag", name, key)
			}
			if !strings.Contains(doc, "\n"+key+" ") {
				t.Errorf("DefaultsDoc lacks %s (%s)", key, name)
			}
		}
	}
	for _, kind := range reg.Problems() {
		p, _ := reg.Problem(kind)
		v := reflect.ValueOf(p.New()).Elem()
		for _, key := range leafKeys(v.Type(), "problem") {
			if f := structFieldAt(v.Type(), strings.TrimPrefix(key, "problem.")); f.Tag.Get("doc") == "" {
				t.Errorf("%s: %s has no doc tag", kind, key)
			}
			if !strings.Contains(doc, "\n"+key+" ") {
				t.Errorf("DefaultsDoc lacks %s (%s)", key, kind)
			}
		}
	}
}
