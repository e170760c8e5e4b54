package bench

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
)

func TestTorus(t *testing.T) {
	for _, tc := range []struct{ n, rows int }{{9, 3}, {12, 3}, {16, 4}, {64, 8}, {1024, 32}} {
		g, err := Torus(tc.n)
		if err != nil {
			t.Fatalf("Torus(%d): %v", tc.n, err)
		}
		if g.N != tc.n {
			t.Errorf("Torus(%d) has %d agents", tc.n, g.N)
		}
		for i := range g.N {
			if d := len(g.Neighbors(i)); d != 4 {
				t.Fatalf("Torus(%d): agent %d has %d neighbours, want 4", tc.n, i, d)
			}
		}
		// Agent 0's neighbours on the rows x (n/rows) torus.
		cols := tc.n / tc.rows
		want := map[int]bool{1: true, cols - 1: true, cols: true, tc.n - cols: true}
		for _, j := range g.Neighbors(0) {
			if !want[j] {
				t.Errorf("Torus(%d): agent 0 has neighbour %d, want %v", tc.n, j, want)
			}
		}
	}
	for _, n := range []int{4, 8, 14} { // too small, too small, 2 x 7
		if _, err := Torus(n); err == nil {
			t.Errorf("Torus(%d) accepted", n)
		}
	}
}

// averages returns the iterates after rounds of x_i <- (x_i + sum_{j in
// N_i} x_j) / (1 + |N_i|) from StartValues, computed centrally.
func averages(g *graph.Graph, d, rounds int) [][]float64 {
	x := make([][]float64, g.N)
	for i := range x {
		x[i] = StartValues(i, d)
	}
	for range rounds {
		next := make([][]float64, g.N)
		for i := range x {
			next[i] = append([]float64(nil), x[i]...)
			for _, j := range g.Neighbors(i) {
				for k := range next[i] {
					next[i][k] += x[j][k]
				}
			}
			for k := range next[i] {
				next[i][k] /= float64(1 + len(g.Neighbors(i)))
			}
		}
		x = next
	}
	return x
}

// checkAverages compares the raw agents' iterates with averages.
func checkAverages(t *testing.T, agents []*rawAgent, want [][]float64) {
	t.Helper()
	for i, a := range agents {
		for k, v := range a.x {
			if math.Abs(v-want[i][k]) > 1e-12 {
				t.Fatalf("agent %d: x[%d] = %v, central computation %v", i, k, v, want[i][k])
			}
		}
	}
	if want[0][0] == StartValues(0, 1)[0] && want[1][0] == StartValues(1, 1)[0] {
		t.Fatal("the iterates did not move: the comparison proves nothing")
	}
}

func TestRawExchangesAverage(t *testing.T) {
	g, err := Torus(12)
	if err != nil {
		t.Fatal(err)
	}
	const d, rounds = 3, 7
	want := averages(g, d, rounds)
	t.Run("chan", func(t *testing.T) {
		r := RawChan(g, d, rounds)
		if _, err := r.Start(); err != nil {
			t.Fatal(err)
		}
		checkAverages(t, r.(*rawChanRun).agents, want)
	})
	for _, inProcess := range []bool{true, false} {
		t.Run(fmt.Sprintf("nats/in-process=%v", inProcess), func(t *testing.T) {
			r, err := RawNATS(g, d, rounds, inProcess)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Start(); err != nil {
				t.Fatal(err)
			}
			checkAverages(t, r.(*rawNATSRun).agents, want)
		})
	}
}

func TestCompare(t *testing.T) {
	rows, err := Compare(Config{N: []int{9}, D: 2, Rounds: 30, Reps: 2,
		Transports: []node.TransportKind{node.TransportChan, node.TransportNATS}, Algos: []string{AlgoNull}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (chan, nats)", len(rows))
	}
	for _, r := range rows {
		c := r.Consim[AlgoNull]
		if r.Raw.RoundsPerSec <= 0 || c.RoundsPerSec <= 0 || r.Ratio[AlgoNull] <= 0 || r.Rounds != 30 {
			t.Errorf("%s: raw %+v, consim %+v, ratio %v, rounds %d: want positive rates and ratio and 30 rounds",
				r.Transport, r.Raw, c, r.Ratio[AlgoNull], r.Rounds)
		}
	}
	if _, err := Compare(Config{N: []int{9}, D: 2, Rounds: 5, Transports: []node.TransportKind{node.TransportChan}, Algos: []string{"newton"}}); err == nil {
		t.Error("Compare accepted an unknown algorithm")
	}
}

func TestAgentsRejectUnknown(t *testing.T) {
	g, err := Torus(9)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Agents("newton", g, 2, 5); err == nil {
		t.Error("Agents accepted an unknown algorithm")
	}
	for _, algo := range []string{AlgoNull, AlgoALM} {
		agents, err := Agents(algo, g, 2, 5)
		if err != nil || len(agents) != 9 {
			t.Errorf("Agents(%s): %d agents, %v", algo, len(agents), err)
		}
	}
}

// BenchmarkVsRaw runs Compare for every transport and N = 16, 64, 256,
// 1,024 (torus, d = 10, the null algorithm) and reports the median ratio consim/raw and
// both rates. Run it with -benchtime 1x: one op is the whole comparison.
func BenchmarkVsRaw(b *testing.B) {
	for _, kind := range node.TransportKinds {
		for _, n := range []int{16, 64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/N=%d", kind, n), func(b *testing.B) {
				for range b.N {
					rows, err := Compare(Config{N: []int{n}, D: 10, Transports: []node.TransportKind{kind}, Algos: []string{AlgoNull}})
					if err != nil {
						b.Fatal(err)
					}
					r := rows[0]
					b.ReportMetric(r.Ratio[AlgoNull], "ratio")
					b.ReportMetric(r.CPURatio[AlgoNull], "cpu-ratio")
					b.ReportMetric(r.Raw.RoundsPerSec, "raw-rounds/s")
					b.ReportMetric(r.Consim[AlgoNull].RoundsPerSec, "rounds/s")
				}
			})
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	rows := []Row{{
		Transport: "chan", N: 1024, Rounds: 450,
		Raw:      Stats{RoundsPerSec: 1566.4, PeakMiB: 47.2},
		Consim:   map[string]Stats{"null": {RoundsPerSec: 692, AllocsPerRound: 184.3, PeakMiB: 51}, "alm": {RoundsPerSec: 222, PeakMiB: 93}},
		Ratio:    map[string]float64{"null": 0.46, "alm": 0.14},
		CPURatio: map[string]float64{"null": 0.44, "alm": 0.15},
	}}
	var b strings.Builder
	WriteMarkdown(&b, []string{"null", "alm"}, rows)
	want := "| transport | N | rounds | raw rounds/s | null rounds/s | ratio | CPU ratio | allocs / agent / round | alm rounds/s | alm ratio | alm CPU ratio | peak MiB raw / null / alm |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| chan | 1,024 | 450 | 1,566 | 692 | 0.46 | 0.44 | 0.18 | 222 | 0.14 | 0.15 | 47 / 51 / 93 |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
