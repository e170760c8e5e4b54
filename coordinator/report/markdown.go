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
	cols, rows := sweepTable(keys, aggs)
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(cols)) + "\n")
	for _, cells := range rows {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n" + sweepTableNote + "\n")
	return b.String()
}

// sweepTableNote explains the rate columns of sweepTable.
const sweepTableNote = "rate: per-round factor r of the consensus error, fitted by least squares to log error vs round " +
	"from its peak to the first round at the tolerance. predicted rate: the algorithm's own prediction with no " +
	"fitted constant, fitted by the same rule (ALM: the exact consensus-error curve of the mean iterate, " +
	"E[w_{t+1}] = E[M] E[w_t] + c; \"-\" when the algorithm has none)."

// sweepTable returns the header and the cells of the aggregate table of
// a sweep, one row per grid point, as SweepMarkdown and the HTML report
// show it.
func sweepTable(keys []string, aggs []PointAgg) (header []string, rows [][]string) {
	header = append(append([]string{}, keys...),
		"ok/runs", "final consensus err mean ± std", "[min, max]", "rounds to tol (reached)",
		"rate", "predicted rate", "final opt gap", "final feasibility", "msgs", "dropouts", "wall s")
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
		rows = append(rows, cells)
	}
	return header, rows
}

// RunMarkdown renders the summary table of one run. For an incomplete
// run (see Run.Incomplete) it starts with a line saying the run did not
// finish, gives the values of the last recorded row as the last recorded
// ones, and writes "unknown (run did not finish)" for what only
// summary.json holds.
func RunMarkdown(r *Run, st RunStats) string {
	var b strings.Builder
	if r.Incomplete {
		fmt.Fprintf(&b, "# Run %s (did not finish)\n\n", r.ID())
		fmt.Fprintf(&b, "**Incomplete run bundle: %s.** The measured values below come from the recorded rows.\n\n", r.IncompleteNote())
	} else {
		fmt.Fprintf(&b, "# Run %s\n\n", r.Summary.RunID)
	}
	writeTable(&b, runTable(r, st))
	return b.String()
}

// runTable returns the quantity and value pairs of the summary table of
// one run, as RunMarkdown and the HTML report show them.
func runTable(r *Run, st RunStats) [][2]string {
	if r.Incomplete {
		return incompleteTable(r, st)
	}
	s := r.Summary
	return [][2]string{
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
}

// incompleteTable is runTable of a run that did not finish: what its
// rows say, and unknown for the rest.
func incompleteTable(r *Run, st RunStats) [][2]string {
	rounds := unknownUnfinished + "; no round recorded"
	wall := unknownUnfinished
	msgs, bytes := unknownUnfinished, unknownUnfinished
	if len(r.Rows) > 0 {
		last := r.Rows[len(r.Rows)-1]
		rounds = fmt.Sprintf("%s; last round recorded %d", unknownUnfinished, last.Round)
		wall = fmt.Sprintf("%s; %.3f at the last recorded round", unknownUnfinished, last.Elapsed.Seconds())
		if r.HasMsgs {
			msgs = fmt.Sprintf("%s; %d through the last recorded round", unknownUnfinished, last.Msgs)
			bytes = fmt.Sprintf("%s; %d through the last recorded round", unknownUnfinished, last.Bytes)
		}
	}
	return [][2]string{
		{"status", unknownUnfinished},
		{"stop cause", unknownUnfinished},
		{"agents", unknownUnfinished},
		{"rounds", rounds},
		{"wall s", wall},
		{"last recorded consensus error", num(st.FinalConsensusErr, "%.4e")},
		{"tolerance", num(st.Tolerance, "%.3e")},
		{"rounds to tolerance", num(st.RoundsToTol, "%.0f")},
		{"consensus rate per round", num(st.Rate, "%.6f")},
		{"last recorded optimality gap", num(st.FinalOptGap, "%.4e")},
		{"last recorded feasibility", num(st.FinalFeasibility, "%.4e")},
		{"messages", msgs},
		{"bytes", bytes},
		{"dropouts", unknownUnfinished},
	}
}

// writeTable writes a two-column quantity | value table.
func writeTable(b *strings.Builder, rows [][2]string) {
	b.WriteString("| quantity | value |\n| --- | --- |\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", row[0], row[1])
	}
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
