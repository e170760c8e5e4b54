package report

import (
	"fmt"
	"math"
	"strings"
)

// SweepMarkdown renders the aggregate table of a sweep: one line per grid
// point with mean ± std and [min, max] over the ok seeds, and the
// algorithm's parameter-free predicted rate.
func SweepMarkdown(keys []string, aggs []PointAgg) string {
	var b strings.Builder
	cols := append(append([]string{}, keys...),
		"ok/runs", "final consensus err mean ± std", "[min, max]", "rounds to tol (reached)",
		"rate", "predicted rate", "final opt gap", "final feasibility", "msgs", "dropouts", "wall s")
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(cols)) + "\n")
	for _, a := range aggs {
		var cells []string
		for _, l := range a.Labels {
			cells = append(cells, l.Value)
		}
		ce := a.Stat("final_consensus_err")
		rt := a.Stat("rounds_to_tol")
		cells = append(cells,
			fmt.Sprintf("%d/%d", a.OK, a.Runs),
			pm(ce.Mean, ce.Std, "%.3e"),
			fmt.Sprintf("[%s, %s]", num(ce.Min, "%.3e"), num(ce.Max, "%.3e")),
			fmt.Sprintf("%s (%d/%d)", pm(rt.Mean, rt.Std, "%.0f"), a.Reached, a.OK),
			pm(a.Stat("rate").Mean, a.Stat("rate").Std, "%.5f"),
			num(a.PredictedRate, "%.5f"),
			pm(a.Stat("final_opt_gap").Mean, a.Stat("final_opt_gap").Std, "%.3e"),
			pm(a.Stat("final_feasibility").Mean, a.Stat("final_feasibility").Std, "%.3e"),
			num(a.Stat("msgs").Mean, "%.0f"),
			num(a.Stat("dropouts").Mean, "%.0f"),
			pm(a.Stat("wall_s").Mean, a.Stat("wall_s").Std, "%.2f"),
		)
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\nrate: per-round factor r of the consensus error, fitted by least squares to log error vs round " +
		"from its peak to the first round at the tolerance. predicted rate: the algorithm's own prediction with no " +
		"fitted constant, fitted by the same rule (ALM: the exact consensus-error curve of the mean iterate, " +
		"E[w_{t+1}] = E[M] E[w_t] + c; \"-\" when the algorithm has none).\n")
	return b.String()
}

// RunMarkdown renders the summary table of one run.
func RunMarkdown(r *Run, st RunStats) string {
	s := r.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "# Run %s\n\n", s.RunID)
	fmt.Fprintf(&b, "| quantity | value |\n| --- | --- |\n")
	rows := [][2]string{
		{"status", s.Status + reason(s.Reason)},
		{"stop cause", s.StopCause},
		{"agents", fmt.Sprint(s.Agents)},
		{"rounds", fmt.Sprintf("%d of %d", s.Rounds, s.RoundsPlanned)},
		{"wall s", num(s.WallSeconds, "%.3f")},
		{"final consensus error", num(st.FinalConsensusErr, "%.4e")},
		{"tolerance", num(st.Tolerance, "%.3e")},
		{"rounds to tolerance", num(st.RoundsToTol, "%.0f")},
		{"consensus rate per round", num(st.Rate, "%.6f")},
		{"final optimality gap", num(st.FinalOptGap, "%.4e")},
		{"final feasibility", num(st.FinalFeasibility, "%.4e")},
		{"messages", fmt.Sprint(s.Traffic.MsgsSent)},
		{"bytes", fmt.Sprint(s.Traffic.BytesSent)},
		{"dropouts", fmt.Sprint(s.Traffic.Dropouts)},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	return b.String()
}

func reason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// num formats x, or "-" when it is NaN.
func num(x float64, format string) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

// pm formats mean ± std, leaving out a zero or NaN std.
func pm(mean, std float64, format string) string {
	if math.IsNaN(mean) {
		return "-"
	}
	if math.IsNaN(std) || std == 0 {
		return fmt.Sprintf(format, mean)
	}
	return fmt.Sprintf(format+" ± "+format, mean, std)
}
