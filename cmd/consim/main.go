// Command consim runs decentralized primal-dual optimization: agents
// exchanging iterates over NATS (or in-memory channels) along the edges of a
// random time-varying graph, observed by a coordinator that writes a results
// bundle.
//
// The command parses flags, loads scenarios, picks a mode and a transport,
// and prints; it does no math. Subcommands, help, flags and shell
// completion are github.com/spf13/cobra commands: cobra generates
// completion scripts for bash, zsh, fish and PowerShell itself, and prints
// help and usage the way Go command-line users expect.
//
// Conventions shared by every subcommand:
//   - `consim help CMD`, `consim CMD --help` and `-h` print to stdout and
//     exit 0;
//   - one spelling for the shared flags: --run-id, --set (repeatable),
//     --out, --nats, --transport, --log-level;
//   - connection settings default from the environment (CONSIM_NATS_URL,
//     CONSIM_LOG_LEVEL); a flag given on the command line wins;
//   - exit 0 on success, 1 when the run itself failed, 2 on usage and
//     input errors (unknown flags and commands, wrong argument counts, bad
//     scenario files), 3 when the run diverged (NaN, Inf or a blow-up in a
//     measured round), 4 when it was stopped by a control its coordinator
//     did not send.
package main

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the run itself failed (agent error, unresponsive agent, timeout)
	exitUsage   = 2 // bad flags, bad scenario, bad input files
	// exitDiverged: the run's iterates became NaN or Inf or blew up
	// (coordinator.ErrDiverged, status "diverged").
	exitDiverged = 3
	// exitStopped: the run was stopped early by a control its coordinator
	// did not send (coordinator.ErrStoppedElsewhere, status "stopped").
	exitStopped = 4
)

// Environment variables that give connection flags their defaults; a flag
// given on the command line overrides them.
const (
	// envNATSURL is the default of --nats wherever it exists.
	envNATSURL = "CONSIM_NATS_URL"
	// envLogLevel is the default of --log-level wherever it exists.
	envLogLevel = "CONSIM_LOG_LEVEL"
)

// usageError marks errors caused by the caller's input; they exit with 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func main() {
	os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
}

// mainExit runs the command line args and returns the process exit code:
// exitOK, exitFailure, or exitUsage. `consim` without arguments prints the
// help and exits with exitUsage.
func mainExit(args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	if len(args) == 0 {
		if err := root.Help(); err != nil {
			fmt.Fprintf(stderr, "consim: %v\n", err)
		}
		return exitUsage
	}
	cmd, err := a.execute(root, args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
	switch {
	case errors.Is(err, coordinator.ErrDiverged):
		return exitDiverged
	case errors.Is(err, coordinator.ErrStoppedElsewhere):
		return exitStopped
	case errors.Is(err, coordinator.ErrScenarioMismatch), errors.Is(err, node.ErrRunRefused), errors.Is(err, node.ErrScenarioMismatch):
		// The processes of a run were given different scenarios: input.
		return exitUsage
	case !isUsage(err):
		return exitFailure
	}
	if !a.ran {
		// Flags, arguments or the command name were wrong.
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return exitUsage
}

// app is one invocation of the command line: its outputs, and whether a
// command's own work has begun.
type app struct {
	stdout, stderr io.Writer
	// ran is set once a command's RunE starts: errors before it are cobra's
	// (unknown commands and flags, argument counts) and so usage errors.
	ran bool
}

// execute runs root on args and returns the command that ran (or failed
// to parse) with its error; an error raised before the command's own work
// began is a usage error.
func (a *app) execute(root *cobra.Command, args []string) (*cobra.Command, error) {
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if cmd == nil {
		cmd = root
	}
	if err != nil && !a.ran && !isUsage(err) {
		err = usageError{err}
	}
	return cmd, err
}

// runE wraps a command's work, marking that parsing is over.
func (a *app) runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		return fn(cmd, args)
	}
}

// rootCmd builds the `consim` command tree, writing to a's outputs.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:               "consim",
		Short:             "decentralized primal-dual optimization over a message bus",
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: checkEnvFlags,
		// --version and -v print what `consim version` prints.
		Version: buildVersion(debug.ReadBuildInfo).Version,
	}
	withHelp(root, "consim")
	root.SetVersionTemplate(versionTemplate())
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddGroup(
		&cobra.Group{ID: "run", Title: "Scenarios:"},
		&cobra.Group{ID: "procs", Title: "Agents as OS processes, on one host or several:"},
	)
	for _, c := range []*cobra.Command{
		a.runCmd(), a.validateCmd(), a.graphCmd(), a.reproduceCmd(), a.dataCmd(),
		a.listCmd(), a.sweepCmd(), a.reportCmd(), a.scaleCmd(),
	} {
		c.GroupID = "run"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.natsCmd(), a.nodeCmd(), a.coordinatorCmd(), a.launchCmd()} {
		c.GroupID = "procs"
		root.AddCommand(c)
	}
	root.AddCommand(a.versionCmd(), a.benchCmd())
	root.SetHelpCommand(helpCmd(root))
	root.InitDefaultHelpCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		// Without a shell it is a usage error, as for every group.
		c.Short = "print the shell completion script for bash, zsh, fish or powershell"
		c.Example = "  source <(consim completion bash)\n  consim completion zsh > \"${fpath[1]}/_consim\""
		c.RunE = func(*cobra.Command, []string) error {
			return usagef("want a shell: bash, zsh, fish or powershell")
		}
	}
	return root
}

// helpCmd is `consim help [command]`: the command's help on stdout, exit
// 0; an unknown command is a usage error.
func helpCmd(root *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "help [command]",
		Short: "print the help of any command",
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			c, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usagef("unknown help topic %q", strings.Join(args, " "))
			}
			c.InitDefaultHelpFlag() // list -h, --help among its flags
			return c.Help()
		},
	}
	withHelp(cmd, "help")
	return cmd
}

// checkEnvFlags rejects a CONSIM_LOG_LEVEL that --log-level does not
// override and that names no level, naming the variable.
func checkEnvFlags(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags().Lookup("log-level")
	v, set := os.LookupEnv(envLogLevel)
	if f == nil || f.Changed || !set {
		return nil
	}
	if hclog.LevelFromString(f.Value.String()) == hclog.NoLevel {
		return usagef("%s=%q: want trace, debug, info, warn, error or off", envLogLevel, v)
	}
	return nil
}

// Shared flags: one spelling, one meaning, in every command that has them.

// addSetFlag adds --set key=value, repeatable, applied in order; more
// continues its help text.
func addSetFlag(cmd *cobra.Command, p *[]string, more string) {
	cmd.Flags().StringArrayVar(p, "set", nil, "`key=value` overriding a scenario key"+more+" (repeatable, applied in order)")
}

// addOutFlag adds --out DIR, completed with directories.
func addOutFlag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "out", "", usage)
	mustComplete(cmd, "out", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}

// addRunIDFlag adds --run-id ID.
func addRunIDFlag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "run-id", "", usage)
	mustComplete(cmd, "run-id", cobra.NoFileCompletions)
}

// addLegacyRunFlag adds --run, the earlier spelling of --run-id, hidden
// and deprecated, bound to the same value.
func addLegacyRunFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "run", "", "deprecated spelling of --run-id")
	if err := cmd.Flags().MarkHidden("run"); err != nil {
		panic(err)
	}
}

// legacyRunFlag warns on stderr when --run was used and rejects it beside
// a different --run-id.
func legacyRunFlag(cmd *cobra.Command, stderr io.Writer) error {
	fs := cmd.Flags()
	if !fs.Changed("run") {
		return nil
	}
	if fs.Changed("run-id") {
		return usagef("--run is the deprecated spelling of --run-id: give only --run-id")
	}
	fmt.Fprintf(stderr, "%s: --run is deprecated, use --run-id\n", cmd.CommandPath())
	return nil
}

// addNATSFlag adds --nats URL, whose default is $CONSIM_NATS_URL.
func addNATSFlag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "nats", os.Getenv(envNATSURL), usage+" (env "+envNATSURL+")")
	mustComplete(cmd, "nats", cobra.NoFileCompletions)
}

// addLogLevelFlag adds --log-level, whose default is $CONSIM_LOG_LEVEL,
// else def.
func addLogLevelFlag(cmd *cobra.Command, p *string, def, usage string) {
	if v := os.Getenv(envLogLevel); v != "" {
		def = v
	}
	cmd.Flags().StringVar(p, "log-level", def, usage+": trace, debug, info, warn, error, off (env "+envLogLevel+")")
	mustComplete(cmd, "log-level", cobra.FixedCompletions(logLevels, cobra.ShellCompDirectiveNoFileComp))
}

// logLevels are the values of --log-level.
var logLevels = []cobra.Completion{"trace", "debug", "info", "warn", "error", "off"}

// addTransportFlag adds --transport with default def.
func addTransportFlag(cmd *cobra.Command, p *string, def, usage string) {
	cmd.Flags().StringVar(p, "transport", def, usage)
	mustComplete(cmd, "transport", cobra.FixedCompletions(scenarios.Transports(), cobra.ShellCompDirectiveNoFileComp))
}

// helpFiles hold the long help of the commands, one text file each
// (help/<command path, words joined by _>.txt): the help itself, then,
// after a line "Example:", the examples.
//
//go:embed help/*.txt
var helpFiles embed.FS

// withHelp sets cmd's Long and Example from help/name.txt; a missing file
// is a programming error.
func withHelp(cmd *cobra.Command, name string) {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	long, example, _ := strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n\nExample:\n")
	cmd.Long, cmd.Example = long, example
}

// mustComplete registers the completion of flag name; it fails only on a
// programming error (no such flag, or registered twice).
func mustComplete(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
		panic(err)
	}
}

// transportAndURL resolves --transport and --nats: a URL implies
// nats-tcp unless --transport was given. A URL that came from
// CONSIM_NATS_URL rather than --nats is dropped when --transport chan was
// given: the in-memory transport has no server to connect to. A
// --transport that names no transport is a usage error naming the
// allowed ones.
func transportAndURL(fs *pflag.FlagSet, transport, url string) (string, string, error) {
	if fs.Changed("transport") && !slices.Contains(scenarios.Transports(), transport) {
		return "", "", usagef("--transport %q: want one of %s", transport, strings.Join(scenarios.Transports(), ", "))
	}
	if url != "" && !fs.Changed("nats") && fs.Changed("transport") && transport == string(node.TransportChan) {
		url = ""
	}
	if url != "" && !fs.Changed("transport") {
		transport = string(node.TransportNATSTCP)
	}
	return transport, url, nil
}

// Positional arguments.

// scenarioArgs accepts exactly one scenario file.
func scenarioArgs(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("want exactly one scenario file, got %d arguments", len(args))
	}
	return nil
}

// noArgs accepts no positional arguments.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) != 0 {
		return usagef("unexpected arguments %q", args)
	}
	return nil
}

// completeScenario completes the first positional argument with scenario
// files (*.yaml, *.yml) and nothing after it.
func completeScenario(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// groupRunE is the work of a command that only groups subcommands: it
// names a missing or unknown subcommand as a usage error.
func groupRunE(what string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		if len(args) == 0 {
			return usagef("want %s: %s", what, strings.Join(names, ", "))
		}
		return usagef("unknown %s %q (allowed: %s)", what, args[0], strings.Join(names, ", "))
	}
}
