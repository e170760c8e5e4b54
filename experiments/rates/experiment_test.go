package rates

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall runs a small instance (6 agents, p = 1, small budgets) and
// checks its rows: every gossip row's observed factor is within 0.001 of
// graph.GossipRates' rho2 beside it, and every ALM row's observed
// mean-square factor is within its 95% interval (widened to at least
// 1e-4) of the exact predicted curve's factor on the same window, with
// rho(E[M])^2 <= rho(T).
func TestSmall(t *testing.T) {
	c := Config{Ps: []float64{1}, Methods: []string{"gossip", "alm"}, N: 6, ERQ: 0.5, Seed: 1,
		Budget: 2000, ALMSeeds: 10, ALMRounds: 300, Batches: 10}
	var res *Result
	dir, md := exptest.Publish(t, func(ctx context.Context) (*Result, error) {
		var err error
		res, err = c.Run(ctx)
		return res, err
	})
	if _, err := os.Stat(filepath.Join(dir, "rates.csv")); err != nil {
		t.Fatal(err)
	}
	var gossip, almRows int
	for _, r := range res.Rows {
		switch r.Method {
		case "gossip":
			gossip++
			if d := math.Abs(r.Obs.Rate - r.Pred1); !(d <= 0.001) {
				t.Errorf("%s %s p=%v: observed %v, predicted %v", r.Method, r.Graph, r.P, r.Obs.Rate, r.Pred1)
			}
		case "alm":
			almRows++
			if m, ms := r.Pred1, r.Pred2; !(m > 0 && m <= ms+1e-12) {
				t.Errorf("%s %s p=%v: rho(E[M])^2 %v, rho(T) %v", r.Method, r.Graph, r.P, m, ms)
			}
			half := math.Max((r.Obs2.Hi-r.Obs2.Lo)/2, 1e-4)
			if !(math.Abs(r.Obs2.Rate-r.WinMS) <= half) {
				t.Errorf("%s %s p=%v: mean square observed %v, predicted on its window %v (half interval %v)", r.Method, r.Graph, r.P, r.Obs2.Rate, r.WinMS, half)
			}
		}
	}
	if gossip != 3 || almRows != 3 {
		t.Errorf("%d gossip and %d ALM rows, want 3 each", gossip, almRows)
	}
	t.Log(md)
}
