package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
)

// dataShards is what `consim data export` needs of a problem instance:
// each agent's rows.
type dataShards interface {
	DataShard(i int) (*dataset.Dataset, error)
}

// exportManifest is DIR/problem.json of `consim data export`: what an
// outside solver needs to rebuild f and the optimum the bundle reports.
type exportManifest struct {
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Agents   int    `json:"agents"`
	Dim      int    `json:"dim"`
	// Objective states f in the files' terms.
	Objective string  `json:"objective"`
	Reg       float64 `json:"reg"`
	// Box is X = [lo, hi]^n, infinite bounds as "inf"/"-inf" strings.
	Box    [2]any    `json:"box"`
	Files  []string  `json:"files"`
	FStar  float64   `json:"f_star"`
	XStar  []float64 `json:"x_star"`
	Convex bool      `json:"convex"`
}

func (a *app) dataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "export a scenario's data, one file per agent, with the optimum it reports",
		Long: `Data works on the data of a scenario's problem. Its one subcommand,
export, writes each agent's rows to a file with the optimum the run's
bundle reports, for solvers outside consim.`,
		Example: `  consim data export scenarios/logistic32.yaml shards/`,
		RunE:    groupRunE("subcommand"),
	}
	cmd.AddCommand(a.dataExportCmd())
	return cmd
}

func (a *app) dataExportCmd() *cobra.Command {
	var sets []string
	var format string
	cmd := &cobra.Command{
		Use:   "export SCENARIO DIR",
		Short: "write each agent's rows and problem.json (f*, x*) to a new directory",
		Long: `Export builds the scenario's problem and writes DIR (which must not exist)
with one file per agent, agent-<i>.svm (LIBSVM) or agent-<i>.csv (label
first), and problem.json: the objective in the files' terms, the
regularizer, the box, f* and x*. A problem kind without rows (such as
portfolio) is a usage error.`,
		Example: `  consim data export scenarios/quickstart.yaml shards/
  consim data export scenarios/logistic32.yaml shards/ --format csv --set agents=8`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("want a scenario file and a new directory, got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
			case 1:
				return nil, cobra.ShellCompDirectiveFilterDirs
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
	}
	cmd.Flags().StringVar(&format, "format", dataset.FormatLIBSVM, "file `format` of the shards: libsvm or csv (label first)")
	mustComplete(cmd, "format", cobra.FixedCompletions([]cobra.Completion{dataset.FormatLIBSVM, dataset.FormatCSV}, cobra.ShellCompDirectiveNoFileComp))
	addSetFlag(cmd, &sets, ", e.g. --set agents=8")
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		path, dir := args[0], args[1]
		if format != dataset.FormatLIBSVM && format != dataset.FormatCSV {
			return usagef("--format %q: want libsvm or csv", format)
		}
		s, err := loadScenario(path, sets)
		if err != nil {
			return err
		}
		st, err := buildScenario(s)
		if err != nil {
			return err
		}
		src, ok := st.Env.Problem.(dataShards)
		if !ok {
			return usagef("problem kind %s holds no rows to export", s.Problem.Kind)
		}
		if _, err := os.Stat(dir); err == nil {
			return usagef("%s exists: data export writes a new directory", dir)
		}
		prob, err := st.Problem()
		if err != nil {
			return err
		}
		shards := make([]*dataset.Dataset, s.Agents)
		for i := range shards {
			if shards[i], err = src.DataShard(i); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		ext := map[string]string{dataset.FormatLIBSVM: "svm", dataset.FormatCSV: "csv"}[format]
		files, err := dataset.SaveShards(filepath.Join(dir, "agent-%d."+ext), shards, format)
		if err != nil {
			return err
		}
		for i := range files {
			files[i] = filepath.Base(files[i])
		}
		reg := regOf(s.Problem.Params)
		m := exportManifest{
			Scenario:  s.Name,
			Kind:      s.Problem.Kind,
			Agents:    s.Agents,
			Dim:       prob.Dim(),
			Objective: objectiveText(s.Problem.Kind),
			Reg:       reg,
			Box:       [2]any{jsonNum(prob.Box.Lo), jsonNum(prob.Box.Hi)},
			Files:     files,
			FStar:     prob.FStar,
			XStar:     prob.XStar,
			Convex:    prob.Convex,
		}
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "problem.json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "wrote %d shards and problem.json (f* = %s) to %s\n", len(files), registry.Num(prob.FStar), dir)
		return nil
	})
	return cmd
}

// regOf is the regularizer weight of a problem block that has one.
func regOf(p registry.Params) float64 {
	if r, ok := p.(interface{ Lambda() float64 }); ok {
		return r.Lambda()
	}
	return 0
}

// objectiveText states f of a regression kind in terms of the exported
// rows (a_k, b_k) of agent i's file S_i, m_i its rows, N the agents.
func objectiveText(kind string) string {
	const mean = "f(x) = (1/N) sum_i f_i(x), f_i(x) = (1/m_i) sum_{k in S_i} "
	switch kind {
	case "least_squares":
		return mean + "(a_k^T x - b_k)^2 / 2 + (reg/2)||x||^2"
	case "logistic":
		return mean + "log(1 + exp(-b_k a_k^T x)) + (reg/2)||x||^2"
	case "nonconvex_regression":
		return mean + "(c^2/2) log(1 + ((a_k^T x - b_k)/c)^2) + reg sum_j x_j^2/(1 + x_j^2)"
	}
	return "see the problem's documentation"
}

// jsonNum is v, or "inf"/"-inf" for the infinities JSON cannot hold.
func jsonNum(v float64) any {
	switch {
	case v > 1e308:
		return "inf"
	case v < -1e308:
		return "-inf"
	}
	return v
}

func (a *app) listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list the registered algorithms and problem kinds",
		Long: `List prints every registered algorithm (the scenario key algorithm.name)
and problem kind (problem.kind) with a one-line summary. Their keys and
defaults are in the README's scenario key table.`,
		Example:           "  consim list",
		Args:              func(_ *cobra.Command, args []string) error { return listArgs(args) },
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.runE(func(*cobra.Command, []string) error {
			stdout := a.stdout
			reg := catalog.Default()
			fmt.Fprintln(stdout, "Algorithms (algorithm.name):")
			for _, n := range reg.Algorithms() {
				al, _ := reg.Algorithm(n)
				fmt.Fprintf(stdout, "  %-21s %s\n", n, al.Summary)
			}
			fmt.Fprintln(stdout, "\nProblems (problem.kind):")
			for _, k := range reg.Problems() {
				p, _ := reg.Problem(k)
				fmt.Fprintf(stdout, "  %-21s %s\n", k, p.Summary)
			}
			fmt.Fprintln(stdout, "\nEach one's keys and defaults: the scenario key table in the README.")
			return nil
		}),
	}
}

// listArgs accepts no arguments.
func listArgs(args []string) error {
	if len(args) != 0 {
		return usagef("list takes no arguments, got %d", len(args))
	}
	return nil
}
