package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
)

// ringChords returns the ring on n agents plus one chord per agent to a
// hash-chosen partner: a fixed, irregular graph of mean degree about 4.
func ringChords(b *testing.B, n int) *graph.Graph {
	b.Helper()
	var edges []graph.Edge
	seen := map[[2]int]bool{}
	add := func(i, j int) {
		if i > j {
			i, j = j, i
		}
		if i != j && !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			edges = append(edges, graph.Edge{I: i, J: j, P: 1})
		}
	}
	for i := range n {
		add(i, (i+1)%n)
		add(i, int(graph.Hash(2024, 0, 0, uint64(i), 0)%uint64(n)))
	}
	g, err := graph.New(n, edges)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkNullRounds measures rounds per second of the null agent, the
// bare cost of one neighbour exchange per round, for each transport,
// number of agents N and dimension d. One op is one round of all agents.
func BenchmarkNullRounds(b *testing.B) {
	for _, kind := range TransportKinds {
		for _, n := range []int{16, 64, 256} {
			for _, d := range []int{10, 100} {
				b.Run(fmt.Sprintf("%s/N=%d/d=%d", kind, n, d), func(b *testing.B) { benchNull(b, kind, n, d) })
			}
		}
	}
}

func benchNull(b *testing.B, kind TransportKind, n, d int) {
	g := ringChords(b, n)
	agents := make([]consensus.Agent, n)
	for i := range agents {
		a, err := null.NewAgent(i, g, d, startValues(i, d))
		if err != nil {
			b.Fatal(err)
		}
		agents[i] = a
	}
	tr := newTestTransport(b, kind, n)
	obs, err := tr.Observer()
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- RunAll(ctx, agents, tr, Options{Rounds: b.N, PhaseDeadline: time.Minute}) }()
	for ready := 0; ready < n; {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			b.Fatal(err)
		}
		if s.Kind == StatusReady {
			ready++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	begin := time.Now()
	if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rounds/s")
}
