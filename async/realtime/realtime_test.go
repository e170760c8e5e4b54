package realtime

import (
	"context"
	"testing"
	"time"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/pairwise"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
)

func gossipAgents(t testing.TB, g *graph.Graph, seed uint64) []consensus.AsyncAgent {
	t.Helper()
	as := make([]consensus.AsyncAgent, g.N)
	for i := range as {
		a, err := pairwise.NewAgent(i, g, seed, []float64{float64(i), float64(i * i % 7)})
		if err != nil {
			t.Fatal(err)
		}
		as[i] = a
	}
	return as
}

func TestRunChan(t *testing.T) {
	g, err := graph.Ring(16)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := node.NewChanTransport(g.N)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var last async.Sample
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, gossipAgents(t, g, 1), tr, Config{
		Clock: async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Seed: 1},
		Link:  async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: 1}, Slot: 1, Latency: async.Dist{Kind: async.DistFixed, Mean: 0.05}, Seed: 1},
		Scale: 5 * time.Millisecond, Horizon: 20, Every: 2,
		Observe: func(reps []consensus.Report, s async.Sample) error {
			last = s
			t.Logf("t=%v updates=%d sent=%d", s.Time, s.Updates, s.Sent)
			return nil
		},
	})
	t.Logf("%+v, last %+v", res, last)
	if err != nil {
		t.Fatal(err)
	}
}
