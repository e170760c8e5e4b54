package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestAsyncBundle runs the shipped asynchronous scenario in simulated
// time and, shortened, in real time on the channel transport, and checks
// the bundle: a row per async.every with round = the agents' updates,
// the time and staleness columns after the algorithm's measures, a
// falling consensus error (tenfold in simulated time), and the final
// iterates.
func TestAsyncBundle(t *testing.T) {
	for _, mode := range []string{scenarios.AsyncSimulated, scenarios.AsyncRealtime} {
		t.Run(mode, func(t *testing.T) {
			out := t.TempDir()
			set := []string{"output.dir=" + out, "async.mode=" + mode}
			if mode == scenarios.AsyncRealtime {
				set = append(set, "runtime.transport=chan", "async.time_scale=5ms", "async.horizon=20", "async.every=2")
			}
			s, err := scenarios.LoadWith("../scenarios/async_gossip.yaml", set...)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := sim.Run(context.Background(), s, sim.Options{RunID: mode})
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(out, mode, coordinator.MetricsJSONFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var rows []map[string]*float64
			var keys []string
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var r map[string]*float64
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, r)
				if keys == nil {
					for k := range r {
						keys = append(keys, k)
					}
				}
			}
			want := int(s.Async.Horizon/s.Async.Every) + 1
			if len(rows) != want || sum.MeasuredRounds != want {
				t.Fatalf("%d rows, want %d", len(rows), want)
			}
			for _, c := range append([]string{"exchanges", "refused", "lost"}, async.SampleColumns...) {
				if !slices.Contains(keys, c) {
					t.Errorf("column %s missing from %v", c, keys)
				}
			}
			last := rows[len(rows)-1]
			if *last["time"] != s.Async.Horizon || *last["round"] <= 0 || *last["stale_n"] <= 0 || last["stale_time_max"] == nil {
				t.Errorf("last row %v", show(last))
			}
			// In real time how far it falls depends on the machine's load;
			// that it falls does not.
			fall := 10.0
			if mode == scenarios.AsyncRealtime {
				fall = 1
			}
			if !(*last["consensus_err"] < *rows[0]["consensus_err"]/fall) {
				t.Errorf("consensus error %v -> %v", *rows[0]["consensus_err"], *last["consensus_err"])
			}
			if _, err := os.Stat(filepath.Join(out, mode, coordinator.FinalFile)); err != nil {
				t.Error(err)
			}
			if sum.Status != coordinator.StatusOK || sum.Final == nil || sum.Rounds != int(*last["round"]) {
				t.Errorf("summary %+v", sum)
			}
		})
	}
}

func show(r map[string]*float64) map[string]any {
	m := make(map[string]any, len(r))
	for k, v := range r {
		if v == nil {
			m[k] = nil
		} else {
			m[k] = *v
		}
	}
	return m
}
