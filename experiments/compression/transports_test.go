package compression

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestChocoOnEveryTransportEqualsReference runs choco_sgd (top_k and
// qsgd) and choco_gossip on the small scenario, its edges present with
// probability 0.7 so that whole copies are sent too, on every transport
// (goroutines over channels, NATS in process, NATS over TCP with MACs, the
// stepped engine): each agent's final x_i (final.json) equals the
// matrix-form reference's bit for bit.
func TestChocoOnEveryTransportEqualsReference(t *testing.T) {
	const rounds = 40
	for _, set := range [][]string{
		{"algorithm.compression.operator=top_k"},
		{"algorithm.compression.operator=qsgd", "algorithm.compression.fraction=0", "algorithm.compression.bits=3"},
		{"algorithm.name=choco_gossip", "algorithm.gamma=0.3", "problem.init.kind=random"},
	} {
		for _, transport := range []string{"chan", "nats", "nats-tcp", "stepped"} {
			t.Run(set[0]+"/"+transport, func(t *testing.T) {
				over := append([]string{"graph.p=0.7", "rounds=40", "metrics.every=20", "runtime.transport=" + transport, "output.dir=" + t.TempDir()}, set...)
				s, err := scenarios.LoadWith(filepath.Join("testdata", "small.yaml"), over...)
				if err != nil {
					t.Fatal(err)
				}
				st, err := s.Build()
				if err != nil {
					t.Fatal(err)
				}
				want, err := st.Run.(registry.Referencer).Reference(rounds)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := sim.RunSetup(context.Background(), st, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(sum.Bundle, coordinator.FinalFile))
				if err != nil {
					t.Fatal(err)
				}
				var fin coordinator.FinalIterates
				if err := json.Unmarshal(b, &fin); err != nil {
					t.Fatal(err)
				}
				if len(fin.Agents) != len(want) {
					t.Fatalf("%d final iterates, want %d", len(fin.Agents), len(want))
				}
				for i, a := range fin.Agents {
					if a.Round != rounds || len(a.X) != len(want[i]) {
						t.Fatalf("agent %d: round %d, %d values", i, a.Round, len(a.X))
					}
					for k, v := range a.X {
						if math.Float64bits(v) != math.Float64bits(want[i][k]) {
							t.Fatalf("agent %d: x[%d] = %v, reference %v", i, k, v, want[i][k])
						}
					}
				}
				if sum.Traffic.Dropouts != 0 || sum.Traffic.Malformed != 0 {
					t.Errorf("losses in a lossless run: %+v", sum.Traffic)
				}
			})
		}
	}
}
