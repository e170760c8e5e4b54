package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/consim/consim/internal/buildinfo"
	"github.com/consim/consim/node"
)

// reproduceADMM runs `consim reproduce admm` with the flags and arguments
// args and returns its error (a usageError for bad flags or arguments)
// without printing it.
func reproduceADMM(args []string, stdout, stderr io.Writer) error {
	a := &app{stdout: stdout, stderr: stderr}
	_, err := a.execute(a.rootCmd(), append([]string{"reproduce", "admm"}, args...))
	return err
}

// commandPaths lists the path (without "consim") of every command a user
// can call, the root first; cobra's hidden completion requests are left
// out.
func commandPaths(t *testing.T) [][]string {
	t.Helper()
	a := &app{stdout: io.Discard, stderr: io.Discard}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Hidden || strings.HasPrefix(sub.Name(), "__") {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(a.rootCmd(), nil)
	return paths
}

// TestHelpOnStdout: `consim help CMD`, `consim CMD --help` and
// `consim CMD -h` print the command's help to stdout and exit 0, for the
// root and every subcommand; each help says what the command does and
// gives an example.
func TestHelpOnStdout(t *testing.T) {
	paths := commandPaths(t)
	want := []string{"run", "validate", "graph", "reproduce", "reproduce admm", "data", "data export", "list",
		"nats", "node", "coordinator", "launch", "sweep", "report", "version", "help",
		"completion", "completion bash", "completion zsh", "completion fish", "completion powershell"}
	have := map[string]bool{}
	for _, p := range paths {
		have[strings.Join(p, " ")] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("no command %q", w)
		}
	}
	for _, p := range paths {
		name := strings.TrimSpace("consim " + strings.Join(p, " "))
		forms := [][]string{
			append([]string{"help"}, p...),
			append(append([]string(nil), p...), "--help"),
			append(append([]string(nil), p...), "-h"),
		}
		for _, args := range forms {
			code, stdout, stderr := consim(t, args...)
			if code != exitOK || stderr != "" {
				t.Errorf("consim %s: exit %d, stderr %q; want 0 and nothing on stderr", strings.Join(args, " "), code, stderr)
				continue
			}
			if !strings.Contains(stdout, "Usage:\n  "+name) || !strings.Contains(stdout, "-h, --help") {
				t.Errorf("consim %s: stdout is not the help of %s:\n%s", strings.Join(args, " "), name, stdout)
			}
		}
		// What it does, and an example (cobra's per-shell completion
		// commands carry their own instructions instead).
		_, stdout, _ := consim(t, append(p, "--help")...)
		if len(p) == 2 && p[0] == "completion" {
			continue
		}
		if !strings.Contains(stdout, "Examples:\n") {
			t.Errorf("%s: help has no example:\n%s", name, stdout)
		}
	}
}

// TestNoArgumentsPrintsHelpExitsTwo: `consim` alone prints the command
// list and exits 2, as a usage error.
func TestNoArgumentsPrintsHelpExitsTwo(t *testing.T) {
	code, stdout, _ := consim(t)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, w := range []string{"Usage:", "run ", "launch ", "CONSIM_NATS_URL"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("help lacks %q:\n%s", w, stdout)
		}
	}
}

// TestUsageErrorsExitTwo: unknown commands and flags, wrong argument
// counts and missing subcommands exit 2 with a message naming what was
// wrong, and print nothing on stdout.
func TestUsageErrorsExitTwo(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown help topic "frobnicate"`},
		{[]string{"run", quickstart, "extra.yaml"}, "want exactly one scenario file, got 2"},
		{[]string{"validate"}, "want exactly one scenario file, got 0"},
		{[]string{"data"}, "want subcommand: export"},
		{[]string{"data", "import"}, `unknown subcommand "import"`},
		{[]string{"data", "export", quickstart}, "want a scenario file and a new directory, got 1"},
		{[]string{"reproduce"}, "want experiment: admm"},
		{[]string{"reproduce", "svrg"}, `unknown experiment "svrg"`},
		{[]string{"reproduce", "slicing", "--bb-nodes", "-1"}, "--bb-nodes -1: want >= 0"},
		{[]string{"reproduce", "slicing", "--optima", "no-such-optima.csv"}, "--optima: open no-such-optima.csv"},
		{[]string{"reproduce", "slicing", "--optima", "../../docs/reproductions/slicing-optima.csv", "--nodes", "12"}, "--nodes and --flows must keep their defaults"},
		{[]string{"list", "x"}, "list takes no arguments, got 1"},
		{[]string{"nats", "x"}, "unexpected arguments"},
		{[]string{"version", "x"}, "unexpected arguments"},
		{[]string{"report"}, "want exactly one results directory, got 0"},
		{[]string{"completion"}, "want a shell"},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh"`},
		{[]string{"nats", "--port", "http"}, `invalid argument "http" for "--port"`},
		{[]string{"nats", "--store", "js"}, "--store js: needs --jetstream"},
		{[]string{"run", quickstart, "--out"}, "flag needs an argument: --out"},
		{[]string{"node", "--run-id", "r", "--id", "0", quickstart, "--run", "s"}, "give only --run-id"},
	}
	// An unknown flag, before or after the arguments, names the flag.
	for _, p := range commandPaths(t) {
		tests = append(tests, struct {
			args []string
			want string
		}{append(append([]string(nil), p...), "--no-such-flag"), "unknown flag: --no-such-flag"})
	}
	tests = append(tests, struct {
		args []string
		want string
	}{[]string{"run", "--bogus", quickstart}, "unknown flag: --bogus"})
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := consim(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr, exitUsage, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

// TestFlagsBeforeOrAfterArguments: flags may stand on either side of the
// positional arguments, and --set is applied in order (the last wins).
func TestFlagsBeforeOrAfterArguments(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "--set", "rounds=3", "--set", "rounds=7", quickstart},
		{"validate", quickstart, "--set", "rounds=3", "--set", "rounds=7"},
		{"validate", "--set", "rounds=3", quickstart, "--set=rounds=7"},
	} {
		code, stdout, stderr := consim(t, args...)
		if code != exitOK || !regexp.MustCompile(`(?m)^rounds: 7$`).MatchString(stdout) {
			t.Errorf("%q: exit %d, stderr %q; want the resolved scenario with rounds: 7", args, code, stderr)
		}
	}
	// A value with commas is one --set, not several.
	code, _, stderr := consim(t, "validate", quickstart, "--set", "graph.p=0.5,0.6")
	if code != exitUsage || !strings.Contains(stderr, "graph.p") {
		t.Errorf("--set graph.p=0.5,0.6: exit %d, stderr %q; want one bad value of graph.p", code, stderr)
	}
}

// TestSharedFlagSpelling audits every command's flags: the shared flags
// have one spelling, the connection flags read the environment and say
// so, and no older spelling is shown.
func TestSharedFlagSpelling(t *testing.T) {
	t.Setenv(envNATSURL, "")
	t.Setenv(envLogLevel, "")
	a := &app{stdout: io.Discard, stderr: io.Discard}
	root := a.rootCmd()
	forbidden := []string{"run", "runid", "run_id", "nats-url", "nats_url", "url", "output", "out-dir", "outdir", "loglevel", "log_level", "log", "override", "sets", "transport-kind"}
	seen := map[string]int{}
	for _, p := range commandPaths(t) {
		c, _, err := root.Find(p)
		if err != nil {
			t.Fatal(err)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			seen[f.Name]++
			for _, bad := range forbidden {
				if f.Name == bad && !f.Hidden {
					t.Errorf("%s: visible flag --%s; the shared spelling is one of --run-id, --nats, --out, --log-level, --set", c.CommandPath(), f.Name)
				}
			}
			switch f.Name {
			case "nats":
				if !strings.Contains(f.Usage, "env "+envNATSURL) {
					t.Errorf("%s --nats: help does not name %s: %q", c.CommandPath(), envNATSURL, f.Usage)
				}
			case "log-level":
				if !strings.Contains(f.Usage, "env "+envLogLevel) {
					t.Errorf("%s --log-level: help does not name %s: %q", c.CommandPath(), envLogLevel, f.Usage)
				}
			case "set":
				if f.Value.Type() != "stringArray" {
					t.Errorf("%s --set is a %s; want a repeatable flag that keeps commas", c.CommandPath(), f.Value.Type())
				}
			case "run":
				if !f.Hidden {
					t.Errorf("%s: --run is shown; it is the hidden old spelling of --run-id", c.CommandPath())
				}
			}
		})
	}
	// Every command that joins or names a run has these.
	for flag, min := range map[string]int{"run-id": 4, "nats": 5, "log-level": 5, "set": 8, "out": 5, "transport": 2} {
		if seen[flag] < min {
			t.Errorf("--%s on %d commands, want at least %d", flag, seen[flag], min)
		}
	}
}

// TestNATSURLFromEnvironment: CONSIM_NATS_URL is the default of --nats, so
// it reaches a run's scenario as runtime.nats_url (with nats-tcp, as
// --nats implies); --nats overrides it, and --transport chan drops it.
func TestNATSURLFromEnvironment(t *testing.T) {
	const envURL, flagURL = "nats://127.0.0.1:14222", "nats://127.0.0.1:24222"
	tests := []struct {
		name          string
		env           string
		args          []string
		sweep         bool
		wantURL, want string // want: runtime.transport
	}{
		{"run, no env", "", nil, false, "", "nats"},
		{"run, env", envURL, nil, false, envURL, "nats-tcp"},
		{"run, env and --nats", envURL, []string{"--nats", flagURL}, false, flagURL, "nats-tcp"},
		{"run, env and --transport nats", envURL, []string{"--transport", "nats"}, false, envURL, "nats"},
		{"run, env and --transport chan", envURL, []string{"--transport", "chan"}, false, "", "chan"},
		{"run, no env, --nats", "", []string{"--nats", flagURL}, false, flagURL, "nats-tcp"},
		{"sweep, no env", "", nil, true, "", "chan"},
		{"sweep, env", envURL, nil, true, envURL, "nats-tcp"},
		{"sweep, env and --nats", envURL, []string{"--nats=" + flagURL}, true, flagURL, "nats-tcp"},
		{"sweep, env and --transport chan", envURL, []string{"--transport", "chan"}, true, "", "chan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envNATSURL, tt.env)
			cmd := &cobra.Command{Use: "test"}
			load := func(path string) (string, string, error) {
				var err error
				if tt.sweep {
					var f sweepFlags
					f.bind(cmd)
					if err = cmd.ParseFlags(tt.args); err != nil {
						return "", "", err
					}
					s, err := f.scenario(cmd, path)
					if err != nil {
						return "", "", err
					}
					return s.Runtime.NATSURL, string(s.Runtime.Transport), nil
				}
				var f runFlags
				f.bind(cmd)
				if err = cmd.ParseFlags(tt.args); err != nil {
					return "", "", err
				}
				s, err := f.scenario(cmd, path)
				if err != nil {
					return "", "", err
				}
				return s.Runtime.NATSURL, string(s.Runtime.Transport), nil
			}
			url, transport, err := load(quickstart)
			if err != nil {
				t.Fatal(err)
			}
			if url != tt.wantURL || transport != tt.want {
				t.Errorf("runtime.nats_url %q, transport %q; want %q, %q", url, transport, tt.wantURL, tt.want)
			}
		})
	}
}

// TestNATSURLFromEnvironmentEndToEnd: the URL of CONSIM_NATS_URL is the
// one a run, a coordinator and a node dial (nothing listens there: each
// fails at once naming it), and --nats wins over it.
func TestNATSURLFromEnvironmentEndToEnd(t *testing.T) {
	const envURL, flagURL = "nats://127.0.0.1:1", "nats://127.0.0.1:2"
	t.Setenv(envNATSURL, envURL)
	out := t.TempDir()
	tests := []struct {
		args       []string
		code       int
		want, dont string
	}{
		{[]string{"run", quickstart, "--out", out, "--log-level", "off"}, exitUsage, "127.0.0.1:1", ""},
		{[]string{"run", quickstart, "--out", out, "--log-level", "off", "--nats", flagURL}, exitUsage, "127.0.0.1:2", "127.0.0.1:1"},
		{[]string{"coordinator", "--run-id", "r1", "--out", out, "--log-level", "off", quickstart}, exitUsage, "127.0.0.1:1", ""},
		{[]string{"node", "--run-id", "r1", "--id", "0", "--log-level", "off", quickstart}, exitUsage, "127.0.0.1:1", ""},
		{[]string{"node", "--run-id", "r1", "--id", "0", "--log-level", "off", "--nats", flagURL, quickstart}, exitUsage, "127.0.0.1:2", "127.0.0.1:1"},
	}
	for _, tt := range tests {
		code, _, stderr := consim(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) || (tt.dont != "" && strings.Contains(stderr, tt.dont)) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming %s", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	// Without the variable and the flag, the URL is required.
	t.Setenv(envNATSURL, "")
	for _, cmd := range []string{"node", "coordinator"} {
		code, _, stderr := consim(t, cmd, "--run-id", "r1", "--id", "0", quickstart)
		if cmd == "coordinator" {
			code, _, stderr = consim(t, cmd, "--run-id", "r1", quickstart)
		}
		if code != exitUsage || !strings.Contains(stderr, "--nats URL is required (or "+envNATSURL+")") {
			t.Errorf("%s without a URL: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

// TestLogLevelFromEnvironment: CONSIM_LOG_LEVEL is the default of
// --log-level; --log-level overrides it; a bad value is a usage error
// naming the variable.
func TestLogLevelFromEnvironment(t *testing.T) {
	t.Setenv(envLogLevel, "debug")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "debug"},
		{[]string{"--log-level", "error"}, "error"},
	} {
		cmd := &cobra.Command{Use: "test"}
		var f runFlags
		f.bind(cmd)
		if err := cmd.ParseFlags(tt.args); err != nil {
			t.Fatal(err)
		}
		if f.logLevel != tt.want {
			t.Errorf("%q: log level %q, want %q", tt.args, f.logLevel, tt.want)
		}
	}
	t.Setenv(envLogLevel, "loud")
	code, _, stderr := consim(t, "run", quickstart, "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, envLogLevel+`="loud"`) {
		t.Errorf("bad %s: exit %d, stderr %q", envLogLevel, code, stderr)
	}
	// The flag wins over the bad variable: the run gets as far as its
	// scenario, which is what fails here.
	code, _, stderr = consim(t, "run", quickstart, "--out", t.TempDir(), "--log-level", "off", "--set", "rounds=-1")
	if code != exitUsage || strings.Contains(stderr, envLogLevel) || !strings.Contains(stderr, "rounds") {
		t.Errorf("--log-level over a bad %s: exit %d, stderr %q; want the scenario's error", envLogLevel, code, stderr)
	}
}

// TestDeprecatedRunFlag: --run, the old spelling of --run-id on node and
// coordinator, still works and warns.
func TestDeprecatedRunFlag(t *testing.T) {
	t.Setenv(envNATSURL, "")
	code, _, stderr := consim(t, "coordinator", "--nats", "nats://127.0.0.1:1", "--run", "old", "--log-level", "off", "--out", t.TempDir(), quickstart)
	if code != exitUsage || !strings.Contains(stderr, "--run is deprecated, use --run-id") || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("coordinator --run: exit %d, stderr %q; want the warning and the dial error", code, stderr)
	}
}

// TestVersion: `consim version` prints the module version, the revision
// ("unknown" when the build carries none) and the Go version; --json
// prints the same as one object.
func TestVersion(t *testing.T) {
	code, stdout, stderr := consim(t, "version")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	goLine := regexp.MustCompile(`(?m)^  go +` + regexp.QuoteMeta(runtime.Version()) + ` ` + runtime.GOOS + "/" + runtime.GOARCH + `$`)
	if !goLine.MatchString(stdout) || !regexp.MustCompile(`(?m)^consim \S+$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^  revision +\S+$`).MatchString(stdout) {
		t.Errorf("version output:\n%s", stdout)
	}
	code, stdout, _ = consim(t, "version", "--json")
	var v buildinfo.Info
	if err := json.Unmarshal([]byte(stdout), &v); code != exitOK || err != nil {
		t.Fatalf("version --json: exit %d, %v:\n%s", code, err, stdout)
	}
	if v.Go != runtime.Version() || v.Revision == "" || v.Version == "" {
		t.Errorf("version --json: %+v", v)
	}
}

// TestCompletion: `consim completion SHELL` prints cobra's script for
// each shell (bash's passes `bash -n`), and positional completion offers
// scenario files where a scenario is expected.
func TestCompletion(t *testing.T) {
	markers := map[string]string{
		"bash":       "complete -o default -F __start_consim consim",
		"zsh":        "#compdef consim",
		"fish":       "complete -c consim",
		"powershell": "Register-ArgumentCompleter",
	}
	for shell, marker := range markers {
		code, stdout, stderr := consim(t, "completion", shell)
		if code != exitOK || stderr != "" || !strings.Contains(stdout, marker) {
			t.Errorf("completion %s: exit %d, stderr %q, script lacks %q", shell, code, stderr, marker)
		}
		if shell != "bash" {
			continue
		}
		if bash, err := exec.LookPath("bash"); err == nil {
			script := filepath.Join(t.TempDir(), "consim.bash")
			if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, out)
			}
		}
	}
	// Cobra's completion protocol: candidates, then ":<directive>".
	const fileExt, filterDirs = ":8\n", ":16\n"
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", ""}, []string{"yaml\n", "yml\n", fileExt}},
		{[]string{"launch", "--out", "r", ""}, []string{"yaml\n", fileExt}},
		{[]string{"sweep", ""}, []string{"yaml\n", fileExt}},
		{[]string{"node", "--id", "0", ""}, []string{"yaml\n", fileExt}},
		{[]string{"data", "export", ""}, []string{"yaml\n", fileExt}},
		{[]string{"data", "export", "s.yaml", ""}, []string{filterDirs}},
		{[]string{"report", ""}, []string{filterDirs}},
		{[]string{"run", "s.yaml", "--transport", ""}, []string{"chan\n", "nats\n", "nats-tcp\n"}},
		{[]string{"sweep", "s.yaml", "--log-level", ""}, []string{"trace\n", "off\n"}},
		{[]string{"r"}, []string{"run\t", "report\t", "reproduce\t"}},
		{[]string{"help", "da"}, []string{"data\t"}},
	}
	for _, tt := range tests {
		code, stdout, _ := consim(t, append([]string{cobra.ShellCompRequestCmd}, tt.args...)...)
		for _, w := range tt.want {
			if code != exitOK || !strings.Contains(stdout, w) {
				t.Errorf("complete %q: exit %d, want %q in\n%s", tt.args, code, w, stdout)
			}
		}
	}
}

// TestCoordinatorResumeNeedsStream: --resume of a run with no status
// stream on the server, and --jetstream against a server without
// JetStream, are usage errors naming what is missing.
func TestCoordinatorResumeNeedsStream(t *testing.T) {
	t.Setenv(node.EnvRunKey, strings.Repeat("ab", 32))
	for _, tc := range []struct {
		jetstream bool
		flag      string
		want      string
	}{
		{true, "--resume", "no status stream of the run"},
		{false, "--jetstream", "has no JetStream"},
	} {
		srv, err := node.StartNATSServer(node.NATSServerOptions{Port: -1, JetStream: tc.jetstream, StoreDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		code, _, stderr := consim(t, "coordinator", quickstart, "--nats", srv.ClientURL(), "--run-id", "nostream", "--out", t.TempDir(), tc.flag)
		srv.Shutdown()
		srv.WaitForShutdown()
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q", tc.flag, code, stderr, exitUsage, tc.want)
		}
	}
}
