package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReproduceRatesSmall runs `consim reproduce rates` on a small
// instance (6 agents, p = 1, small budgets) and checks its files: every
// gossip row's observed factor is within 0.001 of graph.GossipRates' rho2
// written beside it, and every ALM row's observed mean-square factor is
// within its 95% interval (widened to at least 1e-4) of the exact
// predicted curve's factor on the same window, with
// rho(E[M])^2 <= rho(T).
func TestReproduceRatesSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rates")
	var stdout bytes.Buffer
	f := ratesFlags{out: out, ps: "1", methods: "gossip,alm", n: 6, erQ: 0.5, seed: 1,
		budget: 2000, almSeeds: 10, almRounds: 300, batches: 10}
	if err := f.run(&stdout); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "table.md")); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(out, "rates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for k, h := range recs[0] {
		col[h] = k
	}
	num := func(rec []string, name string) float64 {
		v, err := strconv.ParseFloat(rec[col[name]], 64)
		if err != nil {
			t.Fatalf("%s = %q: %v", name, rec[col[name]], err)
		}
		return v
	}
	var gossip, almRows int
	for _, rec := range recs[1:] {
		switch rec[col["method"]] {
		case "gossip":
			gossip++
			if d := math.Abs(num(rec, "observed") - num(rec, "predicted_main")); !(d <= 0.001) {
				t.Errorf("%v: observed %v, predicted %v", rec[:3], num(rec, "observed"), num(rec, "predicted_main"))
			}
		case "alm":
			almRows++
			if m, ms := num(rec, "predicted_main"), num(rec, "predicted_2"); !(m > 0 && m <= ms+1e-12) {
				t.Errorf("%v: rho(E[M])^2 %v, rho(T) %v", rec[:3], m, ms)
			}
			obs, win := num(rec, "observed_ms"), num(rec, "predicted_ms_on_window")
			half := math.Max((num(rec, "observed_ms_hi")-num(rec, "observed_ms_lo"))/2, 1e-4)
			if !(math.Abs(obs-win) <= half) {
				t.Errorf("%v: mean square observed %v, predicted on its window %v (half interval %v)", rec[:3], obs, win, half)
			}
		}
	}
	if gossip != 3 || almRows != 3 {
		t.Errorf("%d gossip and %d ALM rows, want 3 each", gossip, almRows)
	}
	t.Log(stdout.String())
}
