package coordinator

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readFinal(t *testing.T, cfg Config) FinalIterates {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cfg.OutDir, cfg.RunID, FinalFile))
	if err != nil {
		t.Fatal(err)
	}
	var f FinalIterates
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", FinalFile, err)
	}
	return f
}

// TestRunWritesFinalIterates checks final.json: each agent's last report,
// its x_i restored bit for bit, and whether it came with a final status.
func TestRunWritesFinalIterates(t *testing.T) {
	tests := []struct {
		name      string
		sim       sim
		wantRound []int  // per agent
		wantFinal []bool // per agent
	}{
		{
			name:      "all finish",
			sim:       sim{n: 3, rounds: 6, every: 2, interval: time.Millisecond},
			wantRound: []int{6, 6, 6},
			wantFinal: []bool{true, true, true},
		},
		{
			name:      "agent 1 fails",
			sim:       sim{n: 3, rounds: 100000, every: 1, interval: time.Millisecond, failAt: map[int]int{1: 5}},
			wantRound: []int{-1, 4, -1}, // -1: whatever round the survivors stopped at
			wantFinal: []bool{true, false, true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := newFakeObserver()
			cfg := testConfig(t, tc.sim.n)
			cfg.Rounds, cfg.ReportEvery = tc.sim.rounds, tc.sim.every
			defer tc.sim.start(t, obs)()
			_, _ = Run(context.Background(), cfg, obs, fakeEvaluator{})

			f := readFinal(t, cfg)
			if f.RunID != cfg.RunID || len(f.Agents) != tc.sim.n {
				t.Fatalf("final.json run %q with %d agents, want %q and %d", f.RunID, len(f.Agents), cfg.RunID, tc.sim.n)
			}
			for i, a := range f.Agents {
				if a.ID != i || a.Final != tc.wantFinal[i] || (tc.wantRound[i] >= 0 && a.Round != tc.wantRound[i]) {
					t.Errorf("agent entry %d = id %d round %d final %v; want id %d round %d final %v",
						i, a.ID, a.Round, a.Final, i, tc.wantRound[i], tc.wantFinal[i])
				}
				want := tc.sim.report(i, a.Round).X
				if len(a.X) != len(want) || math.Float64bits(a.X[0]) != math.Float64bits(want[0]) {
					t.Errorf("agent %d x = %v, want %v bit for bit", i, a.X, want)
				}
			}
		})
	}
}
