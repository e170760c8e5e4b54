package graph

import "testing"

// benchGraph is an Erdos-Renyi graph on 100 agents with mixed p.
func benchGraph(b *testing.B, uniform bool) *Graph {
	g, err := ErdosRenyi(100, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	if uniform {
		g, err = g.WithUniformP(0.7)
	} else {
		g, err = g.WithRandomP(0.3, 0.9, 2)
	}
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// The benchmarks report the cost of one edge-presence decision.

func BenchmarkBernoulliActive(b *testing.B) {
	g := benchGraph(b, false)
	proc := Bernoulli{G: g, Seed: 1}
	b.ReportAllocs()
	m := len(g.Edges)
	for i := 0; b.Loop(); i++ {
		e := g.Edges[i%m]
		_ = proc.Active(i, DrawDual, e.I, e.J)
	}
}

func BenchmarkBernoulliActiveK(b *testing.B) {
	g := benchGraph(b, false)
	proc := Bernoulli{G: g, Seed: 1}
	b.ReportAllocs()
	m := len(g.Edges)
	for i := 0; b.Loop(); i++ {
		_ = proc.ActiveK(i, DrawDual, i%m)
	}
}

func BenchmarkUniformBernoulliActive(b *testing.B) {
	g := benchGraph(b, true)
	proc := Bernoulli{G: g, Seed: 1}.Specialize()
	b.ReportAllocs()
	m := len(g.Edges)
	for i := 0; b.Loop(); i++ {
		e := g.Edges[i%m]
		_ = proc.Active(i, DrawDual, e.I, e.J)
	}
}

func BenchmarkIncidence(b *testing.B) {
	g := benchGraph(b, false)
	proc := Bernoulli{G: g, Seed: 1}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = g.Incidence(proc, i, DrawPenalty)
	}
}

func BenchmarkStats(b *testing.B) {
	g := benchGraph(b, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Stats(); err != nil {
			b.Fatal(err)
		}
	}
}
