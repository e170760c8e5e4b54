package main

import (
	"fmt"
	"io"
	"sort"
)

// experiments are the paper reproductions `consim reproduce NAME` runs.
func experiments() map[string]command {
	return map[string]command{
		"admm": {"com-SVR-ADMM and baselines on the portfolio mean-variance problem (Yu & Huang)", reproduceADMM},
	}
}

func reproduceCommand(args []string, stdout, stderr io.Writer) error {
	exps := experiments()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := stdout
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprintln(w, "Usage: consim reproduce EXPERIMENT [flags]\n\nExperiments:")
		names := make([]string, 0, len(exps))
		for n := range exps {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "  %-8s %s\n", n, exps[n].summary)
		}
		if len(args) == 0 {
			return usagef("no experiment named")
		}
		return nil
	}
	e, ok := exps[args[0]]
	if !ok {
		return usagef("unknown experiment %q (allowed: admm)", args[0])
	}
	return e.run(args[1:], stdout, stderr)
}
