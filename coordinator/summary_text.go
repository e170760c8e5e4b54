package coordinator

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/consim/consim/internal/units"
)

// WriteText writes the summary for people to read: the status, the run's
// size and speed, each measure from the first to the last measured row
// with its reduction (measures that say nothing about the run are named
// once, with the reason, instead), the objective against f*, the
// algorithm's own measures, the traffic, the faults and the bundle.
func (s *Summary) WriteText(w io.Writer) error {
	var b bytes.Buffer
	s.writeText(&b)
	_, err := w.Write(b.Bytes())
	return err
}

func (s *Summary) writeText(w *bytes.Buffer) {
	fmt.Fprintf(w, "\nrun %s: %s", s.RunID, s.Status)
	if s.Reason != "" {
		fmt.Fprintf(w, " (%s)", s.Reason)
	}
	if mode, ok := s.Meta["async_mode"]; ok {
		// An asynchronous run has no rounds: its length is the agents'
		// updates, within a horizon of simulated time.
		fmt.Fprintf(w, "\n  %-22s %d agents, %s, %d updates to time %v in %.2fs, stop: %s\n",
			"run", s.Agents, mode, s.Rounds, s.Meta["horizon"], s.WallSeconds, s.StopCause)
	} else if s.Resumed {
		// The replayed rounds took no time: a rate would mean nothing.
		fmt.Fprintf(w, "\n  %-22s %d agents, %d of %d rounds, stop: %s\n", "run", s.Agents, s.Rounds, s.RoundsPlanned, s.StopCause)
		fmt.Fprintf(w, "  %-22s by a coordinator that replayed the statuses of one that died (%.2fs of its own)\n", "resumed", s.WallSeconds)
	} else {
		fmt.Fprintf(w, "\n  %-22s %d agents, %d of %d rounds in %.2fs (%.0f rounds/s), stop: %s\n",
			"run", s.Agents, s.Rounds, s.RoundsPlanned, s.WallSeconds, s.RoundsPerSec, s.StopCause)
	}
	if s.Initial != nil && s.Final != nil {
		i, f := s.Initial.Metrics, s.Final.Metrics
		// Measures that say nothing about this run are left out, and
		// named once with the reason.
		var omitted []string
		if i.ConsensusErr == 0 && f.ConsensusErr == 0 && s.Reduction.ConsensusPeak == nil {
			omitted = append(omitted, "consensus error (0 in every measured round: no two agents hold a copy of one variable)")
		} else {
			fmt.Fprintf(w, "  %-22s %.4e -> %.4e (round %d -> %d)%s\n", "consensus error", i.ConsensusErr, f.ConsensusErr, i.Round, f.Round, reductionLabel(s.Reduction.ConsensusErr, i.Round))
			if pk := s.Reduction.ConsensusPeak; pk != nil {
				fmt.Fprintf(w, "  %-22s %.4e at round %d -> %.4e%s\n", "consensus error peak", pk.Value, pk.Round, f.ConsensusErr, peakLabel(pk))
			}
		}
		if math.IsNaN(i.OptGap) && math.IsNaN(f.OptGap) {
			omitted = append(omitted, "optimality gap (no reference value f*)")
		} else {
			fmt.Fprintf(w, "  %-22s %.4e -> %.4e%s\n", "optimality gap", i.OptGap, f.OptGap, reductionLabel(s.Reduction.OptGap, i.Round))
		}
		if fs, ok := s.Meta["f_star"].(float64); ok {
			kind := "optimum"
			if name, _ := s.Meta["f_star_is"].(string); name != "" {
				kind = name
			} else if c, _ := s.Meta["convex"].(bool); !c {
				kind = "best known value (nonconvex)"
			}
			fmt.Fprintf(w, "  %-22s f(xbar) = %.10g, f* = %.10g (%s)\n", "objective", f.ObjValue, fs, kind)
		}
		if math.IsNaN(f.DistToOpt) {
			omitted = append(omitted, "distance to optimum (no optimal point to measure it to)")
		} else {
			fmt.Fprintf(w, "  %-22s %.4e\n", "distance to optimum", f.DistToOpt)
		}
		fmt.Fprintf(w, "  %-22s %.4e -> %.4e\n", "feasibility ||E[A]x||", i.Feasibility, f.Feasibility)

		// The algorithm's own measures (the ALM's kkt, dual_norm, resets).
		for k, e := range f.Extra {
			if k < len(i.Extra) && i.Extra[k].Name == e.Name {
				fmt.Fprintf(w, "  %-22s %.4e -> %.4e\n", e.Name, i.Extra[k].Value, e.Value)
			} else {
				fmt.Fprintf(w, "  %-22s %.4e\n", e.Name, e.Value)
			}
		}
		if len(omitted) > 0 {
			fmt.Fprintf(w, "  %-22s %s\n", "not shown", strings.Join(omitted, "; "))
		}
	}
	fmt.Fprintf(w, "  %-22s %s\n", "traffic", s.Traffic.String())
	for _, fl := range s.Faults {
		fmt.Fprintf(w, "  %-22s agent %d %s at round %d: %s\n", "fault", fl.Agent, fl.Kind, fl.Round, fl.Message)
	}
	fmt.Fprintf(w, "  %-22s %s\n", "results", s.Bundle)
}

// reductionLabel labels a reduction initial/final counted from round from: a
// fall when >= 1, else the rise final/initial.
func reductionLabel(r *float64, from int) string {
	switch {
	case r == nil || math.IsNaN(*r):
		return ""
	case *r >= 1:
		return fmt.Sprintf("  [falls %.3g-fold from round %d]", *r, from)
	}
	return fmt.Sprintf("  [rises %.3g-fold from round %d]", 1 / *r, from)
}

// peakLabel labels the fall from a peak to the last measured row.
func peakLabel(p *Peak) string {
	if p.Reduction == nil || math.IsNaN(*p.Reduction) {
		return ""
	}
	return fmt.Sprintf("  [falls %.3g-fold from the peak at round %d]", *p.Reduction, p.Round)
}

// String summarizes a run's traffic: messages, bytes, dropouts, late,
// malformed and refused frames (those that failed the run's MAC), then
// the other drops that happened.
func (t TrafficTotals) String() string {
	line := fmt.Sprintf("%d messages, %s, %d dropouts, %d late, %d malformed, %d refused",
		t.MsgsSent, units.Bytes(float64(t.BytesSent)), t.Dropouts, t.Late, t.Malformed, t.Refused)
	for _, c := range []struct {
		n    int64
		what string
	}{
		{t.BusMalformed, "misrouted"}, {t.Ahead, "too far ahead"}, {t.Overflow, "beyond the buffer"},
		{t.InboxOverflow, "at a full queue"}, {t.SlowConsumer, "dropped by a full subscription"}, {t.StatusMalformed, "malformed statuses"},
	} {
		if c.n != 0 {
			line += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	return line
}
