package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/internal/bench"
	"github.com/consim/consim/node"
)

// benchCmd is `consim bench`: consim's runtime against the raw baselines
// of internal/bench, in one process and one invocation.
func (a *app) benchCmd() *cobra.Command {
	var cfg bench.Config
	var transports []string
	var asJSON, asMarkdown bool
	cmd := &cobra.Command{
		Use:               "bench",
		Short:             "measure the runtime against raw Go channels and raw nats.go on the same exchange",
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "bench")
	f := cmd.Flags()
	f.IntSliceVar(&cfg.N, "n", []int{16, 64, 256, 1024}, "numbers of agents (tori; each at least 9)")
	f.IntVar(&cfg.D, "dim", 10, "dimension d of the iterates")
	f.IntVar(&cfg.Rounds, "rounds", 0, "rounds per run; 0 calibrates to about 0.3 s of the raw baseline")
	f.IntVar(&cfg.Reps, "reps", 3, "alternating measurements of each implementation")
	f.StringSliceVar(&transports, "transports", []string{"chan", "nats", "nats-tcp"}, "transports: chan, nats, nats-tcp")
	f.StringSliceVar(&cfg.Algos, "algos", []string{bench.AlgoNull}, "algorithms run on consim: null, alm")
	f.IntVar(&cfg.ReportEvery, "report-every", 0, "progress statuses every k rounds in the consim runs (0: none)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of the table")
	f.BoolVar(&asMarkdown, "markdown", false, "print the Markdown table of docs/benchmarks.md instead (make docs BENCH=1)")
	cmd.MarkFlagsMutuallyExclusive("json", "markdown")
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		for _, t := range transports {
			cfg.Transports = append(cfg.Transports, node.TransportKind(t))
		}
		if err := cfg.Validate(); err != nil {
			return usageError{err}
		}
		cfg.Progress = func(what string) { fmt.Fprintf(a.stderr, "bench: %s\n", what) }
		rows, err := bench.Compare(cfg)
		if err != nil {
			return err
		}
		switch {
		case asJSON:
			return bench.WriteJSON(a.stdout, rows)
		case asMarkdown:
			writeBenchMarkdown(a.stdout, cfg.Algos, rows)
		default:
			writeBenchTable(a.stdout, cfg, rows)
		}
		return nil
	})
	return cmd
}

// writeBenchTable prints one line per transport, N and implementation.
func writeBenchTable(w io.Writer, cfg bench.Config, rows []bench.Row) {
	fmt.Fprintf(w, "torus, d = %d, %d alternating runs each (medians), GOMAXPROCS %d\n\n", cfg.D, cfg.Reps, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "%-9s %6s %-11s %8s %12s %7s %12s %9s %14s %13s %9s\n",
		"transport", "N", "impl", "rounds", "rounds/s", "ratio", "cpu us/round", "cpu ratio", "allocs/round", "bytes/round", "peak MiB")
	line := func(r bench.Row, impl string, s bench.Stats, ratio, cpuRatio string) {
		fmt.Fprintf(w, "%-9s %6d %-11s %8d %12.1f %7s %12.1f %9s %14.1f %13.0f %9.1f\n",
			r.Transport, r.N, impl, r.Rounds, s.RoundsPerSec, ratio, s.CPUPerRound, cpuRatio, s.AllocsPerRound, s.BytesPerRound, s.PeakMiB)
	}
	for _, r := range rows {
		line(r, "raw", r.Raw, "", "")
		for _, al := range cfg.Algos {
			line(r, "consim "+al, r.Consim[al], fmt.Sprintf("%.2f", r.Ratio[al]), fmt.Sprintf("%.2f", r.CPURatio[al]))
		}
	}
	fmt.Fprintln(w, "\nratio: consim rounds/s over the raw baseline's, median of the alternating pairs; "+
		"cpu ratio: raw CPU time per round over consim's. CPU, allocations and bytes are the whole process's "+
		"(NATS server and client included).")
}

// writeBenchMarkdown prints rows as the Markdown table of
// docs/benchmarks.md: per transport and N the raw baseline's rounds/s,
// then for each algorithm its rounds/s and ratios (and, for the first,
// its allocations per agent and round), then the peak memory of each.
func writeBenchMarkdown(w io.Writer, algos []string, rows []bench.Row) {
	head := []string{"transport", "N", "rounds", "raw rounds/s"}
	for i, al := range algos {
		if i == 0 {
			head = append(head, al+" rounds/s", "ratio", "CPU ratio", "allocs / agent / round")
			continue
		}
		head = append(head, al+" rounds/s", al+" ratio", al+" CPU ratio")
	}
	head = append(head, "peak MiB raw / "+strings.Join(algos, " / "))
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		cells := []string{string(r.Transport), thousands(float64(r.N)), fmt.Sprint(r.Rounds), thousands(r.Raw.RoundsPerSec)}
		peaks := []string{fmt.Sprintf("%.0f", r.Raw.PeakMiB)}
		for i, al := range algos {
			s := r.Consim[al]
			cells = append(cells, thousands(s.RoundsPerSec), fmt.Sprintf("%.2f", r.Ratio[al]), fmt.Sprintf("%.2f", r.CPURatio[al]))
			if i == 0 {
				cells = append(cells, fmt.Sprintf("%.2f", s.AllocsPerRound/float64(r.N)))
			}
			peaks = append(peaks, fmt.Sprintf("%.0f", s.PeakMiB))
		}
		cells = append(cells, strings.Join(peaks, " / "))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// thousands formats v rounded to an integer with commas between groups
// of three digits (61,536).
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
