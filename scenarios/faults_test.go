package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/node"
)

func TestFaultsParseAndMap(t *testing.T) {
	doc := minimal + `faults:
  loss: {rate: 0.05, edges: [[0, 1], [2, 3]]}
  delay: {dist: uniform, min: 1ms, max: 3ms}
  staleness: 2
  crashes:
    - {agent: 1, at: 4, restart_after: 2, state: lost}
    - {agent: 2, at: 5}
  on_departure: continue
  stragglers: {dist: exponential, mean: 2ms, agents: [3]}
`
	s, err := Parse([]byte(doc), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !s.Faults.Active() || !s.Faults.ContinueOnDeparture() {
		t.Errorf("Active %v, ContinueOnDeparture %v; want both", s.Faults.Active(), s.Faults.ContinueOnDeparture())
	}
	want := node.Faults{
		Seed:      9,
		Loss:      node.Loss{Rate: 0.05, Edges: [][2]int{{0, 1}, {2, 3}}},
		Delay:     node.Dist{Kind: node.DistUniform, Min: time.Millisecond, Max: 3 * time.Millisecond},
		Staleness: 2,
		Crashes:   []node.Crash{{Agent: 1, At: 4, RestartAfter: 2, LoseState: true}, {Agent: 2, At: 5}},
		Stragglers: node.Stragglers{Dist: node.Dist{Kind: node.DistExponential, Mean: 2 * time.Millisecond},
			Agents: []int{3}},
	}
	if got := s.Faults.Node(9); !reflect.DeepEqual(got, want) {
		t.Errorf("Node:\n got %+v\nwant %+v", got, want)
	}
	roundTrip(t, s)
}

func TestFaultsDefaultIsNone(t *testing.T) {
	s, err := Parse([]byte(minimal), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Faults.Active() || s.Faults.ContinueOnDeparture() {
		t.Errorf("default faults %+v: want none, departure fails", s.Faults)
	}
}

func TestFaultsValidateErrors(t *testing.T) {
	tests := []struct {
		name, faults string
		want         []string
	}{
		{"loss rate", "faults:\n  loss: {rate: 1.5}\n",
			[]string{`x.yaml:7:16: faults.loss.rate: 1.5 is outside [0, 1]`}},
		{"loss edge", "faults:\n  loss: {rate: 0.1, edges: [[0, 4]]}\n",
			[]string{`x.yaml:7:29: faults.loss.edges[0]: [0, 4]: need two distinct agents in [0, 4)`}},
		{"delay dist", "faults:\n  delay: {dist: gamma}\n",
			[]string{`x.yaml:7:17: faults.delay.dist: "gamma" is not one of none, fixed, uniform, exponential`}},
		{"fixed without mean", "faults:\n  delay: {dist: fixed}\n",
			[]string{`x.yaml:7:10: faults.delay.mean: must be a duration > 0 for dist fixed, got 0s`}},
		{"crash beyond rounds", "faults:\n  crashes:\n    - {agent: 1, at: 10}\n",
			[]string{`x.yaml:8:22: faults.crashes[0].at: round 10 is outside [0, rounds = 10)`}},
		{"restart beyond rounds", "faults:\n  crashes:\n    - {agent: 1, at: 5, restart_after: 5}\n",
			[]string{`x.yaml:8:40: faults.crashes[0].restart_after: restart at round 10 is not before rounds = 10 (use 0 for no restart)`}},
		{"state without restart", "faults:\n  crashes:\n    - {agent: 1, at: 5, state: lost}\n",
			[]string{`x.yaml:8:32: faults.crashes[0].state: only applies with restart_after > 0`}},
		{"departure", "faults:\n  on_departure: ignore\n",
			[]string{`x.yaml:7:17: faults.on_departure: "ignore" is not one of continue, fail`}},
		{"straggler agent", "faults:\n  stragglers: {dist: fixed, mean: 1ms, agents: [7]}\n",
			[]string{`x.yaml:7:48: faults.stragglers.agents: agent 7 is outside [0, 4)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(minimal+tt.faults), "x.yaml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = s.Validate()
			if err == nil {
				t.Fatalf("Validate succeeded; want %q", tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

// TestStalenessRefusedForDeltas: an algorithm whose messages are changes
// (choco_sgd) refuses faults.staleness, which would apply an earlier
// round's change twice; loss alone is allowed.
func TestStalenessRefusedForDeltas(t *testing.T) {
	choco := strings.Replace(minimal, "{name: alm}", "{name: choco_sgd}", 1)
	s, err := Parse([]byte(choco+"faults:\n  staleness: 2\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate()
	if err == nil {
		t.Fatal("choco_sgd with staleness validated")
	}
	checkErrors(t, err, []string{`x.yaml:7:14: faults.staleness: algorithm choco_sgd sends changes to state its neighbours keep: an earlier round's message cannot stand in for a missing one; leave staleness out`})
	s, err = Parse([]byte(choco+"faults:\n  loss: {rate: 0.1}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("choco_sgd with loss: %v", err)
	}
}
