package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
)

// isTerminal reports whether w is a character device (an interactive
// terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newProgressPrinter returns the coordinator's progress callback: on a
// terminal a live line (round/total, rounds/s, consensus error, ETA)
// redrawn in place; otherwise a plain line at most every 2 s.
func newProgressPrinter(w io.Writer) func(coordinator.Progress) {
	tty := isTerminal(w)
	var last time.Time
	return func(p coordinator.Progress) {
		total := p.Rounds
		done := p.Metrics.Round >= total
		if !tty && !done && time.Since(last) < 2*time.Second {
			return
		}
		last = time.Now()
		eta := "-"
		if p.RoundsPerSec > 0 {
			eta = (time.Duration(float64(total-p.Metrics.Round) / p.RoundsPerSec * float64(time.Second))).Round(100 * time.Millisecond).String()
		}
		line := fmt.Sprintf("round %d/%d  %.0f rounds/s  consensus err %.3e  opt gap %.3e  ETA %s",
			p.Metrics.Round, total, p.RoundsPerSec, p.Metrics.ConsensusErr, p.Metrics.OptGap, eta)
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
			if done {
				fmt.Fprintln(w)
			}
			return
		}
		fmt.Fprintln(w, line)
	}
}

// printSummary writes the human-readable summary of a run.
func printSummary(w io.Writer, s *coordinator.Summary) {
	fmt.Fprintf(w, "\nrun %s: %s", s.RunID, s.Status)
	if s.Reason != "" {
		fmt.Fprintf(w, " (%s)", s.Reason)
	}
	if s.Resumed {
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
			fmt.Fprintf(w, "  %-22s %.4e -> %.4e (round %d -> %d)%s\n", "consensus error", i.ConsensusErr, f.ConsensusErr, i.Round, f.Round, ratio(s.Reduction.ConsensusErr, i.Round))
			if pk := s.Reduction.ConsensusPeak; pk != nil {
				fmt.Fprintf(w, "  %-22s %.4e at round %d -> %.4e%s\n", "consensus error peak", pk.Value, pk.Round, f.ConsensusErr, peakRatio(pk))
			}
		}
		if math.IsNaN(i.OptGap) && math.IsNaN(f.OptGap) {
			omitted = append(omitted, "optimality gap (no reference value f*)")
		} else {
			fmt.Fprintf(w, "  %-22s %.4e -> %.4e%s\n", "optimality gap", i.OptGap, f.OptGap, ratio(s.Reduction.OptGap, i.Round))
		}
		if fs, ok := s.Meta["f_star"].(float64); ok {
			kind := "optimum"
			if c, _ := s.Meta["convex"].(bool); !c {
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
	fmt.Fprintf(w, "  %-22s %s\n", "traffic", trafficLine(s.Traffic))
	for _, fl := range s.Faults {
		fmt.Fprintf(w, "  %-22s agent %d %s at round %d: %s\n", "fault", fl.Agent, fl.Kind, fl.Round, fl.Message)
	}
	fmt.Fprintf(w, "  %-22s %s\n", "results", s.Bundle)
}

// ratio labels a reduction initial/final counted from round from: a
// fall when >= 1, else the rise final/initial.
func ratio(r *float64, from int) string {
	switch {
	case r == nil || math.IsNaN(*r):
		return ""
	case *r >= 1:
		return fmt.Sprintf("  [falls %.3g-fold from round %d]", *r, from)
	}
	return fmt.Sprintf("  [rises %.3g-fold from round %d]", 1 / *r, from)
}

// peakRatio labels the fall from a peak to the last measured row.
func peakRatio(p *coordinator.Peak) string {
	if p.Reduction == nil || math.IsNaN(*p.Reduction) {
		return ""
	}
	return fmt.Sprintf("  [falls %.3g-fold from the peak at round %d]", *p.Reduction, p.Round)
}

// trafficLine summarizes a run's traffic: messages, bytes, dropouts, late,
// malformed and refused frames (those that failed the run's MAC), then
// the other drops that happened.
func trafficLine(t coordinator.TrafficTotals) string {
	line := fmt.Sprintf("%d messages, %s, %d dropouts, %d late, %d malformed, %d refused",
		t.MsgsSent, scenarios.FormatBytes(float64(t.BytesSent)), t.Dropouts, t.Late, t.Malformed, t.Refused)
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
