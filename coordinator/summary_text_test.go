package coordinator

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/observe"
)

// TestSummaryTrafficAndOmittedMeasures: the traffic line counts refused
// frames; a run whose consensus error is 0 in every measured round (agents
// holding different blocks) and whose distance to the optimum is unknown
// prints neither, and says once why.
func TestSummaryTrafficAndOmittedMeasures(t *testing.T) {
	row := func(round int, gap float64) *Row {
		return &Row{Metrics: observe.Metrics{Round: round, OptGap: gap, DistToOpt: math.NaN(), Feasibility: 1}}
	}
	s := &Summary{RunID: "r", Status: StatusOK, Agents: 6, Rounds: 10, RoundsPlanned: 10, StopCause: StopRounds,
		Initial: row(0, 9), Final: row(10, 0),
		Traffic: TrafficTotals{MsgsSent: 100, BytesSent: 1000, Refused: 7, SlowConsumer: 2}}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"0 malformed, 7 refused, 2 dropped by a full subscription", "not shown", "consensus error (0 in every measured round", "distance to optimum (no optimal point"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"NaN", "0.0000e+00 -> 0.0000e+00 (round"} {
		if strings.Contains(out, bad) {
			t.Errorf("summary prints %q:\n%s", bad, out)
		}
	}
	if strings.Count(out, "not shown") != 1 {
		t.Errorf("the omitted measures are not named once:\n%s", out)
	}
	// A consensus run keeps both lines.
	s.Initial.ConsensusErr, s.Final.ConsensusErr, s.Final.DistToOpt = 1, 1e-3, 0.5
	b.Reset()
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "consensus error") || !strings.Contains(out, "distance to optimum    5.0000e-01") || strings.Contains(out, "not shown") {
		t.Errorf("consensus run:\n%s", out)
	}
}

// TestSummaryNamesFStar: the summary prints what f* is as the run's meta
// names it (f_star_is: the LP bound of a slicing run, not a "best known
// value"), and falls back on the convexity for a meta without the name.
func TestSummaryNamesFStar(t *testing.T) {
	row := &Row{}
	for _, tc := range []struct {
		meta map[string]any
		want string
	}{
		{map[string]any{"f_star": 38.4, "convex": false, "f_star_is": "LP bound"}, "f* = 38.4 (LP bound)"},
		{map[string]any{"f_star": 1.5, "convex": false}, "f* = 1.5 (best known value (nonconvex))"},
		{map[string]any{"f_star": 2.5, "convex": true}, "f* = 2.5 (optimum)"},
	} {
		var b bytes.Buffer
		s := &Summary{Initial: row, Final: row, Meta: tc.meta}
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("meta %v: summary\n%s\nwant %q", tc.meta, b.String(), tc.want)
		}
	}
}
