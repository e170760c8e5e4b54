package main

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/coordinator"
)

// BenchmarkProcessMode measures rounds per second of quickstart's problem
// on a ring of N agents, with the agents as goroutines of one process
// (over channels, and over NATS on TCP loopback) and as one OS process
// each (over NATS on TCP loopback). One op is a whole run; the rounds/s
// metric counts from the coordinator's start to the end, so process
// start-up and scenario building are excluded.
//
//	go test -run '^$' -bench ProcessMode -benchtime 3x ./cmd/consim
func BenchmarkProcessMode(b *testing.B) {
	const rounds = 1000
	exe := consimBinary(b)
	modes := []struct {
		name string
		run  func(ctx context.Context, dir string, sets []string) (*coordinator.Summary, error)
	}{
		{"goroutines-chan", func(ctx context.Context, dir string, sets []string) (*coordinator.Summary, error) {
			return benchGoroutines(ctx, dir, append(sets, "runtime.transport=chan"))
		}},
		{"goroutines-nats-tcp", func(ctx context.Context, dir string, sets []string) (*coordinator.Summary, error) {
			return benchGoroutines(ctx, dir, append(sets, "runtime.transport=nats-tcp"))
		}},
		{"processes-nats-tcp", func(ctx context.Context, dir string, sets []string) (*coordinator.Summary, error) {
			return launch(ctx, launchOptions{path: quickstart, sets: sets, out: dir, logLevel: "off", nodeLogLevel: "error",
				exe: exe, readyTimeout: time.Minute}, io.Discard)
		}},
	}
	for _, n := range []int{8, 16, 32} {
		for _, m := range modes {
			b.Run(fmt.Sprintf("%s/N=%d", m.name, n), func(b *testing.B) {
				sets := []string{fmt.Sprintf("agents=%d", n), fmt.Sprintf("rounds=%d", rounds)}
				var perSec, ready float64
				for b.Loop() {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					sum, err := m.run(ctx, b.TempDir(), sets)
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					if sum.Rounds != rounds {
						b.Fatalf("%d rounds, want %d", sum.Rounds, rounds)
					}
					perSec += sum.RoundsPerSec
					ready += sum.ReadySeconds
				}
				b.ReportMetric(perSec/float64(b.N), "rounds/s")
				b.ReportMetric(ready/float64(b.N), "ready-s")
			})
		}
	}
}

func benchGoroutines(ctx context.Context, dir string, sets []string) (*coordinator.Summary, error) {
	s, err := loadScenario(quickstart, append(sets, "output.dir="+dir))
	if err != nil {
		return nil, err
	}
	return runScenario(ctx, s, "", hclog.NewNullLogger(), nil)
}
