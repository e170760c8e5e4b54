package node

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestScenarioCheckAtStart: an agent with a scenario (Options.Scenario)
// announces it in its ready status; a refuse control fails it with
// ErrRunRefused and the coordinator's reason, a start naming another
// fingerprint with ErrScenarioMismatch, and a start naming its own, or
// none, starts the run.
func TestScenarioCheckAtStart(t *testing.T) {
	canonical := []byte("rounds: 2000\nseed: 1\n")
	for _, tc := range []struct {
		name    string
		control Control
		want    error
	}{
		{"refuse", Control{Kind: ControlRefuse, Reason: "rounds is 3000 at the coordinator and 2000 at agent 0"}, ErrRunRefused},
		{"other-fingerprint", Control{Kind: ControlStart, Scenario: ScenarioFingerprint([]byte("rounds: 3000\nseed: 1\n"))}, ErrScenarioMismatch},
		{"same-fingerprint", Control{Kind: ControlStart, Scenario: ScenarioFingerprint(canonical)}, nil},
		{"no-fingerprint", Control{Kind: ControlStart}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestTransport(t, TransportChan, 1)
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			ep, err := tr.Endpoint(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := obs.Control(EncodeControl(tc.control)); err != nil {
				t.Fatal(err)
			}
			a := nullAgents(t, ring(t, 1), 1)[0]
			err = Run(context.Background(), a, ep, Options{N: 1, Rounds: 3, Scenario: canonical})
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Run: %v, want %v", err, tc.want)
			}
			if tc.want == ErrRunRefused && !strings.Contains(err.Error(), tc.control.Reason) {
				t.Errorf("Run: %v, want the coordinator's reason", err)
			}
			ready, err := DecodeStatus(<-obs.Statuses())
			if err != nil {
				t.Fatal(err)
			}
			if ready.Kind != StatusReady || ready.Scenario != string(canonical) {
				t.Errorf("first status %s with scenario %q, want ready with %q", ready.Kind, ready.Scenario, canonical)
			}
		})
	}
}
