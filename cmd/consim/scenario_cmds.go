package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/consim/consim/consensus/registry"
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

// scenarioPath parses args, whose flags may stand before or after the
// file, and returns the one scenario file they name.
func scenarioPath(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	return oneScenario(fs, pos)
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

func oneScenario(fs *flag.FlagSet, pos []string) (string, error) {
	if len(pos) != 1 {
		fs.Usage()
		return "", usagef("want exactly one scenario file, got %d arguments", len(pos))
	}
	return pos[0], nil
}

func validateCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "validate SCENARIO [--set key=value ...]", stderr)
	var sets stringList
	fs.Var(&sets, "set", "override a scenario key, e.g. --set graph.p=0.3 (repeatable)")
	path, err := scenarioPath(fs, args)
	if err != nil {
		return err
	}
	s, err := loadScenario(path, sets)
	if err != nil {
		return err
	}
	st, err := buildScenario(s)
	if err != nil {
		return err
	}
	out, err := s.Marshal()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "# %s: valid; resolved scenario with defaults:\n%s", path, out)
	printResolved(stdout, s.Algorithm.Name, st.Resolved())
	return nil
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

func graphCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("graph", "graph SCENARIO [--record FILE] [--set key=value ...]", stderr)
	var sets stringList
	var record string
	fs.Var(&sets, "set", "override a scenario key (repeatable)")
	fs.StringVar(&record, "record", "", "write the realized edge set of every round and draw to FILE (a new file), for edges.replay")
	path, err := scenarioPath(fs, args)
	if err != nil {
		return err
	}
	s, err := loadScenario(path, sets)
	if err != nil {
		return err
	}
	st, err := buildScenario(s)
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
	if record != "" {
		if err := recordEdges(st, record); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-28s %s (%d rounds x 3 draws)\n", "recorded edges", record, s.Rounds)
	}
	return nil
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
