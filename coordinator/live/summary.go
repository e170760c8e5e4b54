package live

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/consim/consim/coordinator"
)

// ending is the outcome End records.
type ending struct {
	sum *coordinator.Summary
	err error
}

// summaryOf returns the summary event's data, a JSON array of [quantity,
// value] pairs: the run's state after the row p, or its outcome e, or,
// with neither, the wait for its first row.
func (s *Server) summaryOf(p *coordinator.Progress, e *ending) []byte {
	pairs := [][2]string{
		{"run", s.info.RunID},
		{"scenario", s.info.Scenario},
		{"agents", fmt.Sprint(s.info.Agents)},
	}
	switch {
	case e != nil && e.sum != nil:
		sum := e.sum
		status := sum.Status
		if sum.Reason != "" {
			status += " (" + sum.Reason + ")"
		}
		pairs = append(pairs,
			[2]string{"status", status},
			[2]string{"stop cause", sum.StopCause},
			[2]string{"rounds", fmt.Sprintf("%d of %d", sum.Rounds, sum.RoundsPlanned)},
			[2]string{"wall s", fmt.Sprintf("%.3f", sum.WallSeconds)},
			[2]string{"rounds/s", fmt.Sprintf("%.1f", sum.RoundsPerSec)},
		)
		if f := sum.Final; f != nil {
			pairs = append(pairs, measures(f.Metrics.ConsensusErr, f.Metrics.OptGap, f.Metrics.Feasibility)...)
		}
		pairs = append(pairs, traffic(sum.Traffic.MsgsSent, sum.Traffic.BytesSent, &sum.Traffic)...)
		pairs = append(pairs, [2]string{"bundle", sum.Bundle})
	case e != nil:
		status := "ended"
		if e.err != nil {
			status = "failed: " + e.err.Error()
		}
		pairs = append(pairs, [2]string{"status", status})
	case p != nil:
		pairs = append(pairs,
			[2]string{"status", "running"},
			[2]string{"round", fmt.Sprintf("%d of %d", p.Metrics.Round, p.Rounds)},
			[2]string{"elapsed s", fmt.Sprintf("%.3f", p.Elapsed.Seconds())},
			[2]string{"rounds/s", fmt.Sprintf("%.1f", p.RoundsPerSec)},
		)
		pairs = append(pairs, measures(p.Metrics.ConsensusErr, p.Metrics.OptGap, p.Metrics.Feasibility)...)
		pairs = append(pairs, traffic(p.Msgs, p.Bytes, &p.Traffic)...)
	default:
		pairs = append(pairs, [2]string{"status", "waiting for the agents and the first measured round"})
	}
	b, _ := json.Marshal(pairs) // strings only: cannot fail
	return b
}

func measures(consensus, gap, feas float64) [][2]string {
	return [][2]string{
		{"consensus error", num(consensus)},
		{"optimality gap", num(gap)},
		{"feasibility", num(feas)},
	}
}

func traffic(msgs, bytes int64, t *coordinator.TrafficTotals) [][2]string {
	return [][2]string{
		{"messages", fmt.Sprint(msgs)},
		{"bytes", fmt.Sprint(bytes)},
		{"dropouts", fmt.Sprint(t.Dropouts)},
		{"refused frames", fmt.Sprint(t.Refused)},
	}
}

// num formats a measure, "-" when the run has none.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.4e", x)
}
