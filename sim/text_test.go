package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
)

// TestSweepProgressString: the line consim sweep prints per run, with
// rounds to tolerance "-" when not reached and the error after the
// status.
func TestSweepProgressString(t *testing.T) {
	p := SweepProgress{Done: 3, Total: 12,
		Point: scenarios.SweepPoint{Labels: []scenarios.Label{{Key: "graph.p", Value: "0.5"}, {Key: "alpha", Value: "2"}}, Scenario: &scenarios.Scenario{Seed: 7}},
		Row:   &report.SweepRow{Stats: report.RunStats{Status: "ok", FinalConsensusErr: 1.5e-3, RoundsToTol: math.NaN(), WallSeconds: 0.123}},
	}
	want := "[ 3/12] graph.p=0.5 alpha=2          seed 7    final consensus err 1.500e-03  rounds to tol -  0.12s  ok"
	if got := p.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	p.Row.Stats.RoundsToTol, p.Row.Stats.Status, p.Row.Error = 420, "failed", "agent 2 failed"
	if got := p.String(); !strings.HasSuffix(got, "rounds to tol 420  0.12s  failed: agent 2 failed") {
		t.Errorf("failed run: %q", got)
	}
}

// TestScaleResultWriteText: consim scale's table.
func TestScaleResultWriteText(t *testing.T) {
	r := &ScaleResult{Scenario: "big", Status: "ok", Agents: 1024, Transport: "chan", GOMAXPROCS: 2,
		StartupSeconds: 1.234, Round0Seconds: 2.5, Rounds: 100, WallSeconds: 4, RoundsPerSec: 25,
		PeakRSSBytes: 3 << 20, CPUSeconds: 7.891, Bundle: "results/big-1"}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "scenario        big (ok)\n" +
		"agents          1024 on chan, GOMAXPROCS 2\n" +
		"round 0 starts  1.23 s after the command (measured at 2.50 s)\n" +
		"rounds          100 in 4.00 s: 25 rounds/s\n" +
		"peak RSS        3.0 MiB\n" +
		"CPU time        7.89 s (whole command)\n" +
		"bundle          results/big-1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
