package main

import (
	"fmt"

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
			bench.WriteMarkdown(a.stdout, cfg.Algos, rows)
		default:
			bench.WriteTable(a.stdout, cfg, rows)
		}
		return nil
	})
	return cmd
}
