package coordinator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consim/consim/node"
)

// canon is a ScenarioCheck over a one-line canonical form.
type canon string

func (c canon) Fingerprint() [sha256.Size]byte { return sha256.Sum256([]byte(c)) }

func (c canon) Differences(other []byte, here, there string) string {
	return fmt.Sprintf("x is %s at %s and %s at %s", c, here, other, there)
}

// TestScenarioMismatchRefusesRun: the ready status of agent 1 carries
// another scenario than the coordinator's (or none): the run is refused
// before its start, with a refuse control naming the agent and the keys,
// ErrScenarioMismatch, and the stop cause scenario_mismatch.
func TestScenarioMismatchRefusesRun(t *testing.T) {
	for _, tc := range []struct {
		name, agent1, want string
	}{
		{"other", "x: 2", "agent 1 runs another scenario than the coordinator: x is x: 1 at the coordinator and x: 2 at agent 1"},
		{"none", "", "agent 1 announced no scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, 3)
			cfg.ScenarioCheck = canon("x: 1")
			f := newFakeObserver()
			for i, sc := range []string{"x: 1", tc.agent1, "x: 1"} {
				b, err := node.EncodeStatus(node.Status{Kind: node.StatusReady, ID: i, Scenario: sc})
				if err != nil {
					t.Fatal(err)
				}
				f.statuses <- b
			}
			sum, err := Run(context.Background(), cfg, f, fakeEvaluator{})
			if !errors.Is(err, ErrScenarioMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v; want a scenario mismatch naming %q", err, tc.want)
			}
			if sum == nil || sum.Status != StatusFailed || sum.StopCause != StopScenario {
				t.Fatalf("summary %+v; want failed, %s", sum, StopScenario)
			}
			ctl := f.sentControls()
			if len(ctl) == 0 || ctl[0].Kind != node.ControlRefuse || !strings.Contains(ctl[0].Reason, tc.want) {
				t.Fatalf("controls %+v; want a refuse naming %q first", ctl, tc.want)
			}
			for _, c := range ctl {
				if c.Kind == node.ControlStart || c.Kind == node.ControlStop {
					t.Errorf("control %+v after the refusal", c)
				}
			}
		})
	}
}

// TestScenarioMatchStarts: agents that share the coordinator's scenario
// start, and the start control names its fingerprint.
func TestScenarioMatchStarts(t *testing.T) {
	cfg := testConfig(t, 2)
	cfg.Rounds, cfg.ReportEvery = 2, 1
	cfg.ScenarioCheck = canon("x: 1")
	f := newFakeObserver()
	s := sim{n: 2, rounds: 2, every: 1}
	for i := range 2 {
		b, err := node.EncodeStatus(node.Status{Kind: node.StatusReady, ID: i, Scenario: "x: 1"})
		if err != nil {
			t.Fatal(err)
		}
		f.statuses <- b
	}
	s.notReady = map[int]bool{0: true, 1: true} // their readies are above
	done := s.start(t, f)
	defer done()
	if _, err := Run(context.Background(), cfg, f, fakeEvaluator{}); err != nil {
		t.Fatal(err)
	}
	fp := sha256.Sum256([]byte("x: 1"))
	ctl := f.sentControls()
	if len(ctl) == 0 || ctl[0].Kind != node.ControlStart || ctl[0].Scenario != hex.EncodeToString(fp[:]) || ctl[0].Scenario != node.ScenarioFingerprint([]byte("x: 1")) {
		t.Fatalf("controls %+v; want a start naming fingerprint %x", ctl, fp)
	}
}
