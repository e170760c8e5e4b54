// Command straggler runs the straggler experiment (package
// experiments/straggler) and prints its table, or with -write splices it
// into the generated block of a Markdown file (docs/async.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/consim/consim/experiments/straggler"
)

func main() {
	cfg := straggler.DefaultConfig()
	flag.IntVar(&cfg.Seeds, "seeds", cfg.Seeds, "number of seeds")
	flag.Float64Var(&cfg.Target, "target", cfg.Target, "optimality gap to reach")
	write := flag.String("write", "", "Markdown file whose straggler table block to rewrite (e.g. docs/async.md)")
	flag.Parse()
	if err := run(cfg, *write); err != nil {
		fmt.Fprintln(os.Stderr, "straggler:", err)
		os.Exit(1)
	}
}

func run(cfg straggler.Config, write string) error {
	res, err := straggler.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	table := res.Markdown()
	if write == "" {
		fmt.Print(table)
		return nil
	}
	doc, err := os.ReadFile(write)
	if err != nil {
		return err
	}
	out, err := straggler.Splice(string(doc), table)
	if err != nil {
		return err
	}
	return os.WriteFile(write, []byte(out), 0o644)
}
