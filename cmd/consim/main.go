// Command consim runs decentralized primal-dual optimization: agents
// exchanging iterates over NATS (or in-memory channels) along the edges of a
// random time-varying graph, observed by a coordinator that writes a results
// bundle.
//
// The command parses flags, loads scenarios, picks a mode and a transport,
// and prints; it does no math.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the run itself failed (agent error, unresponsive agent, timeout)
	exitUsage   = 2 // bad flags, bad scenario, bad input files
)

// usageError marks errors caused by the caller's input; they exit with 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// command is one `consim` subcommand.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() map[string]command {
	return map[string]command{
		"run":       {"run a scenario: agents, transport and coordinator in this process", runCommand},
		"validate":  {"check a scenario file and print it with every default filled in", validateCommand},
		"graph":     {"print topology statistics and spectra of a scenario's graph", graphCommand},
		"reproduce": {"reproduce a paper's experiment (admm)", reproduceCommand},
		"data":      {"export a scenario's data, one file per agent, with the optimum it reports", dataCommand},
		"list":      {"list the registered algorithms and problem kinds", listCommand},

		// Agents as OS processes, on one host or several.
		"nats":        {"serve a standalone NATS server, the bus of a multi-host run", natsCommand},
		"node":        {"join a run as one agent process (see launch)", nodeCommand},
		"coordinator": {"observe a run of agent processes and write its bundle", coordinatorCommand},
		"launch":      {"run a scenario with every agent as its own process", launchCommand},
		"sweep":       {"run a scenario's sweep grid over seeds and write tables and plots", sweepCommand},
		"report":      {"draw plots and write report.md for a run bundle or sweep directory", reportCommand},
	}
}

func main() {
	os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
}

// mainExit runs the command line args and returns the process exit code.
func mainExit(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		topUsage(stdout, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "consim: unknown command %q\n\n", args[0])
		topUsage(stderr, cmds)
		return exitUsage
	}
	err := c.run(args[1:], stdout, stderr)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case isUsage(err):
		fmt.Fprintf(stderr, "consim %s: %v\n", args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "consim %s: %v\n", args[0], err)
		return exitFailure
	}
}

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func topUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "consim — decentralized primal-dual optimization over a message bus")
	fmt.Fprintln(w, "\nUsage: consim COMMAND [arguments] [flags]\n\nCommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'consim COMMAND --help' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage with the given synopsis.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: consim %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags that may stand before or after positional
// arguments and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
