package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/internal/units"
	"github.com/consim/consim/scenarios"
)

// loadScenario loads path, applies the --set overrides in order and
// validates. Every failure is a usage error (exit 2).
func loadScenario(path string, sets []string) (*scenarios.Scenario, error) {
	s, err := scenarios.LoadWith(path, sets...)
	if err != nil {
		return nil, usageError{err}
	}
	return s, nil
}

// loadAndBuild loads the scenario at path with the overrides sets
// (loadScenario) and builds it (buildScenario).
func loadAndBuild(path string, sets []string) (*scenarios.Scenario, *scenarios.Setup, error) {
	s, err := loadScenario(path, sets)
	if err != nil {
		return nil, nil, err
	}
	st, err := buildScenario(s)
	return s, st, err
}

// buildScenario materialises s; a scenario error (such as a disconnected
// graph) is a usage error, anything else a failure.
func buildScenario(s *scenarios.Scenario) (*scenarios.Setup, error) {
	st, err := s.Build()
	if err != nil {
		if errors.Is(err, scenarios.ErrInvalid) {
			return nil, usageError{err}
		}
		return nil, err
	}
	return st, nil
}

// runtimeOverrides returns sets followed by the scenario overrides that
// the --transport, --nats and --out flags stand for (empty ones add
// nothing).
func runtimeOverrides(sets []string, transport, natsURL, out string) []string {
	sets = append([]string(nil), sets...)
	if natsURL != "" {
		sets = append(sets, "runtime.nats_url="+natsURL)
	}
	if transport != "" {
		sets = append(sets, "runtime.transport="+transport)
	}
	if out != "" {
		sets = append(sets, "output.dir="+out)
	}
	return sets
}

// memoryLimitOverride returns sets followed by the override that
// --memory-limit stands for (an empty limit adds nothing).
func memoryLimitOverride(sets []string, limit string) []string {
	if limit == "" {
		return sets
	}
	return append(append([]string(nil), sets...), "runtime.memory_limit="+limit)
}

// addMemoryLimitFlag adds --memory-limit, the scenario key
// runtime.memory_limit.
func addMemoryLimitFlag(cmd *cobra.Command, limit *string) {
	cmd.Flags().StringVar(limit, "memory-limit", "", "refuse a scenario whose memory estimate exceeds `SIZE`, e.g. 8GiB or 512MiB (scenario runtime.memory_limit; default: physical memory)")
}

func (a *app) validateCmd() *cobra.Command {
	var sets []string
	var memLimit string
	cmd := scenarioCmd("validate", "check a scenario file and print it with every default filled in")
	addSetFlag(cmd, &sets, ", e.g. --set graph.p=0.3")
	addMemoryLimitFlag(cmd, &memLimit)
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		path := args[0]
		s, err := loadScenario(path, memoryLimitOverride(sets, memLimit))
		if err != nil {
			return err
		}
		est, err := scenarios.EstimateMemory(s)
		if err != nil {
			return usageError{err}
		}
		st, err := buildScenario(s)
		if err != nil {
			return err
		}
		out, err := s.Marshal()
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "# %s: valid; resolved scenario with defaults:\n%s", path, out)
		printResolved(a.stdout, s.Algorithm.Name, st.Resolved())
		limit := "no limit known"
		if b, src := s.MemoryLimit(); b > 0 {
			limit = "limit " + units.Bytes(float64(b)) + " (" + src + ")"
		}
		fmt.Fprintf(a.stdout, "# memory estimate: %s; %s\n", est, limit)
		return nil
	})
	return cmd
}

// printResolved writes the algorithm's resolved parameters and constants
// as YAML comments, one per line: name, value (the shortest exact
// decimal) and where it came from.
func printResolved(w io.Writer, algorithm string, vs []registry.Value) {
	fmt.Fprintf(w, "# resolved parameters of %s (after presets and computed constants; also in summary.json):\n", algorithm)
	if len(vs) == 0 {
		fmt.Fprintln(w, "#   (none)")
		return
	}
	width := 0
	for _, v := range vs {
		width = max(width, len(v.Name))
	}
	for _, v := range vs {
		line := fmt.Sprintf("#   %-*s = %s", width, v.Name, registry.Num(v.Value))
		if v.Note != "" {
			line = fmt.Sprintf("%-*s  %s", width+30, line, v.Note)
		}
		fmt.Fprintln(w, line)
	}
}

func (a *app) graphCmd() *cobra.Command {
	var sets []string
	var record string
	cmd := scenarioCmd("graph", "print topology statistics and spectra of a scenario's graph")
	addSetFlag(cmd, &sets, ", e.g. --set graph.p=0.3")
	cmd.Flags().StringVar(&record, "record", "", "write the realized edge set of every round and draw to `FILE` (a new file), for edges.replay")
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		path, stdout := args[0], a.stdout
		s, st, err := loadAndBuild(path, sets)
		if err != nil {
			return err
		}
		stats, err := st.Graph.Stats()
		if err != nil {
			return fmt.Errorf("graph statistics: %w", err)
		}
		fmt.Fprintf(stdout, "%-28s %s (%s)\n", "scenario", s.Name, path)
		fmt.Fprintf(stdout, "%-28s %s\n", "topology", s.Graph.Topology)
		fmt.Fprint(stdout, stats.String())
		if ds, directed, err := st.DirectedStats(); err != nil {
			return err
		} else if directed {
			fmt.Fprint(stdout, ds.String())
		}
		if record != "" {
			if err := recordEdges(st, record); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-28s %s (%d rounds x 3 draws)\n", "recorded edges", record, s.Rounds)
		}
		return nil
	})
	return cmd
}

// recordEdges writes st's realized edge sets to path, which must not exist.
func recordEdges(st *scenarios.Setup, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return usageError{fmt.Errorf("--record: %w", err)}
	}
	if err := st.RecordEdges(f); err != nil {
		f.Close()
		return fmt.Errorf("record edges to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("record edges to %s: %w", path, err)
	}
	return nil
}
