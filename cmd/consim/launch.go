package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/live"
	"github.com/consim/consim/node"
	"github.com/consim/consim/sim"
)

// defaultStopGrace is how long agent processes have to end on their own
// after the coordinator is done, and again after SIGTERM before SIGKILL.
const defaultStopGrace = 5 * time.Second

// launchOptions configure launch.
type launchOptions struct {
	path         string   // scenario file
	sets         []string // --set overrides, passed to every agent process as given
	natsURL      string   // external NATS server; empty starts one on loopback
	runID        string   // empty: generated
	out          string   // results root; empty: the scenario's output.dir
	logLevel     string   // the launcher's log level
	nodeLogLevel string   // the agent processes' log level
	readyTimeout time.Duration
	grace        time.Duration
	// sec are the credentials and TLS files for the external server
	// --nats, handed to the agent processes as paths.
	sec natsSecurity
	// ui is the address of the live view; empty serves nothing.
	ui string

	// exe is the consim binary the agents run; empty: this executable.
	exe string
	// started, if set, is called with each agent's id and process id
	// once it has started.
	started func(id, pid int)
}

func (a *app) launchCmd() *cobra.Command {
	var o launchOptions
	cmd := &cobra.Command{
		Use:   "launch SCENARIO",
		Short: "run a scenario with every agent as its own process",
		Long: `Launch runs the scenario with every agent as its own 'consim node' OS
process, supervised, and the coordinator in this process, over the NATS
server --nats or one it starts on 127.0.0.1 at a free port. Agent
processes get the scenario file and the --set overrides; their stderr is
shown prefixed with the agent. They end on their own after the run; those
still running --grace later get SIGTERM, and SIGKILL after another
--grace. The summary goes to stdout and the bundle to DIR/<run-id>.`,
		Example: `  consim launch scenarios/quickstart.yaml
  consim launch scenarios/quickstart.yaml --set agents=8 --run-id procs --out results`,
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
	addNATSFlag(cmd, &o.natsURL, "`URL` of an external NATS server (default: start one on 127.0.0.1 at a free port)")
	addOutFlag(cmd, &o.out, "results root `DIR` (scenario output.dir); the bundle is DIR/<run-id>")
	addRunIDFlag(cmd, &o.runID, "run `ID` (default: <name>-<UTC time>-<random>)")
	addLogLevelFlag(cmd, &o.logLevel, "info", "log `level` of the launcher and coordinator")
	cmd.Flags().StringVar(&o.nodeLogLevel, "node-log-level", "warn", "log `level` of the agent processes (their stderr is shown prefixed with the agent)")
	mustComplete(cmd, "node-log-level", cobra.FixedCompletions(logLevels, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().DurationVar(&o.readyTimeout, "ready-timeout", coordinator.DefaultReadyTimeout, "how long to wait for every agent process to be ready")
	cmd.Flags().DurationVar(&o.grace, "grace", defaultStopGrace, "how long agent processes have to exit after the run, and after SIGTERM before SIGKILL")
	mustComplete(cmd, "ready-timeout", cobra.NoFileCompletions)
	mustComplete(cmd, "grace", cobra.NoFileCompletions)
	addSetFlag(cmd, &o.sets, " for this process and every agent, e.g. --set graph.p=0.3")
	addNATSSecurityFlags(cmd, &o.sec)
	addUIFlag(cmd, &o.ui)
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		o.path = args[0]
		if o.readyTimeout <= 0 || o.grace <= 0 {
			return usagef("--ready-timeout %v and --grace %v must be positive", o.readyTimeout, o.grace)
		}
		if _, err := newLogger("node", o.nodeLogLevel, io.Discard); err != nil {
			return usagef("--node-log-level %q: want trace, debug, info, warn, error or off", o.nodeLogLevel)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		sum, err := launch(ctx, o, a.stderr)
		if sum != nil {
			printSummary(a.stdout, sum)
		}
		return err
	})
	return cmd
}

// launch runs the scenario with every agent as its own `consim node`
// process and the coordinator in this process, over the NATS server at
// o.natsURL or one started here on loopback. Agent processes end on their
// own after the run; those still running o.grace later, or when ctx ends,
// get SIGTERM, and SIGKILL after another o.grace. launch returns once
// every agent process has exited; the error joins the coordinator's and
// one *childError per agent process that failed on its own.
func launch(ctx context.Context, o launchOptions, stderr io.Writer) (*coordinator.Summary, error) {
	if o.grace <= 0 {
		o.grace = defaultStopGrace
	}
	if o.readyTimeout <= 0 {
		o.readyTimeout = coordinator.DefaultReadyTimeout
	}
	if o.nodeLogLevel == "" {
		o.nodeLogLevel = "warn"
	}
	out := &lockedWriter{w: stderr}
	logger, err := newLogger("consim", o.logLevel, out)
	if err != nil {
		return nil, err
	}
	sets := append([]string(nil), o.sets...)
	if o.out != "" {
		sets = append(sets, "output.dir="+o.out)
	}
	s, err := loadScenario(o.path, sets)
	if err != nil {
		return nil, err
	}
	st, err := buildScenario(s)
	if err != nil {
		return nil, err
	}
	if s.Runtime.Transport == "stepped" {
		return nil, usagef("runtime.transport = stepped: the stepped engine runs every agent in one process; use consim run or consim scale, or a chan or nats transport with launch")
	}
	if s.Runtime.Workers > 0 {
		return nil, usagef("runtime.workers = %d: oracle worker processes are not launched yet; use runtime.workers: 0 (each agent process evaluates its own requests) or consim run", s.Runtime.Workers)
	}
	path, err := filepath.Abs(o.path)
	if err != nil {
		return nil, usageError{fmt.Errorf("scenario path: %w", err)}
	}
	exe := o.exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find the consim executable: %w", err)
		}
	}
	runID := o.runID
	if runID == "" {
		runID = sim.NewRunID(s.Name)
	}
	if err := sim.CheckRunID(s, runID); err != nil {
		return nil, usageError{err}
	}
	ui, err := startUI(out, o.ui, live.Info{RunID: runID, Scenario: s.Name, Agents: s.Agents, Rounds: s.Rounds})
	if err != nil {
		return nil, err
	}
	defer ui.Stop()

	if err := checkNATSURL(o.natsURL); err != nil {
		return nil, err
	}
	// A fresh run key authenticates every frame; it reaches the agent
	// processes in a file only this user can read, named in their
	// environment (never in argv).
	key, err := node.NewRunKey()
	if err != nil {
		return nil, err
	}
	keyDir, err := os.MkdirTemp("", "consim-key-")
	if err != nil {
		return nil, fmt.Errorf("run key: %w", err)
	}
	defer os.RemoveAll(keyDir)
	keyFile := filepath.Join(keyDir, "run.key")
	if err := node.WriteRunKeyFile(keyFile, key); err != nil {
		return nil, fmt.Errorf("run key: %w", err)
	}
	url := o.natsURL
	secure := o.sec.apply
	childArgs := o.sec.args()
	var childEnv func(id int) []string
	if url == "" {
		// The server admits only the run's users: agent i may publish
		// only its own subjects, the coordinator only the controls. Each
		// process finds its user's password in a 0600 file named in its
		// environment.
		users, err := node.RunUsers(runID, s.Agents, 0)
		if err != nil {
			return nil, err
		}
		files := make(map[string]string, len(users))
		for _, u := range users {
			files[u.Name] = filepath.Join(keyDir, u.Name+".password")
			if err := node.WriteNATSPasswordFile(files[u.Name], u.Password); err != nil {
				return nil, err
			}
		}
		srv, err := node.StartNATSServer(node.NATSServerOptions{Name: "consim-" + runID, Host: "127.0.0.1", Port: server.RANDOM_PORT, Users: users})
		if err != nil {
			return nil, err
		}
		defer func() {
			srv.Shutdown()
			srv.WaitForShutdown()
		}()
		url = srv.ClientURL()
		coord := users[len(users)-1] // RunUsers ends with the coordinator
		secure = func(o *node.NATSOptions) error { o.User, o.Password = coord.Name, coord.Password; return nil }
		childArgs = nil
		childEnv = func(id int) []string {
			name := "agent-" + strconv.Itoa(id)
			return []string{node.EnvNATSUser + "=" + name, node.EnvNATSPasswordFile + "=" + files[name]}
		}
	}
	// The observer subscribes before any agent starts: no ready is lost.
	tr, obs, err := dialObserver(s, url, runID, key, secure, logger)
	if err != nil {
		return nil, err
	}
	defer tr.Close()

	coordCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// An agent process that exits unsuccessfully on its own (killed, or
	// failed) is reported to the coordinator at once as lost, named with
	// its pid: the scenario's faults.on_departure decides whether the run
	// goes on without it.
	lost := make(chan coordinator.Lost, s.Agents)
	var reported sync.Map // agent ids reported lost
	env := append(os.Environ(), node.EnvRunKeyFile+"="+keyFile)
	if g := childProcs(s.Agents, runtime.NumCPU(), os.Getenv("GOMAXPROCS")); g > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(g))
	}
	var skip func(string) bool
	if d, ok := childGODEBUG(os.Getenv("GODEBUG")); ok {
		env = append(env, "GODEBUG="+d)
		skip = isSchedTrace
	}
	sup := &supervisor{out: out, env: env, envFor: childEnv, skip: skip, onExit: func(c *child) {
		err := c.failure()
		var ce *childError
		if !errors.As(err, &ce) {
			return
		}
		logger.Error("agent process failed", "agent", c.name, "pid", ce.PID, "status", ce.Status)
		if ce.Code == exitUsage {
			// It rejected its arguments and will never be ready.
			cancel()
			return
		}
		reported.Store(c.id, true)
		lost <- coordinator.Lost{ID: c.id, PID: ce.PID, Reason: "process exited: " + ce.Status}
	}}
	for i := range s.Agents {
		args := append([]string{"node", "--nats", url, "--run-id", runID, "--id", strconv.Itoa(i), "--log-level", o.nodeLogLevel}, childArgs...)
		for _, kv := range o.sets {
			args = append(args, "--set", kv)
		}
		c, err := sup.start("agent "+strconv.Itoa(i), i, exe, append(args, path)...)
		if err != nil {
			cancel()
			sup.stop(o.grace)
			return nil, fmt.Errorf("launch agent %d: %w", i, err)
		}
		if o.started != nil {
			o.started(i, c.cmd.Process.Pid)
		}
	}
	logger.Info("agent processes started", "run", runID, "agents", s.Agents, "nats", redactURL(url))

	sum, runErr := coordinate(coordCtx, st, runID, tr, obs, o.readyTimeout, lost, logger, ui.Tee(newProgressPrinter(out)), false)
	ui.End(sum, runErr)
	if ctx.Err() == nil {
		// After the last round or the coordinator's stop, agents exit.
		sup.wait(o.grace)
	}
	sup.stop(o.grace)
	errs := []error{runErr}
	for _, err := range sup.failures() {
		var ce *childError
		if errors.As(err, &ce) {
			if _, ok := reported.Load(ce.ID); ok && (runErr != nil || s.Faults.ContinueOnDeparture()) {
				// The coordinator named it (the run failed on it), or the
				// run went on without it by the scenario's policy.
				continue
			}
		}
		errs = append(errs, fmt.Errorf("launch: %w", err))
	}
	return sum, errors.Join(errs...)
}

// schedTraceOff is the GODEBUG setting that keeps the Go runtime's system
// monitor (sysmon) of an agent process out of its deep sleep: a
// schedtrace period of 2^31-1 ms (24.8 days).
//
// When every P of a process is idle, sysmon sleeps until a goroutine
// enters a system call, which wakes it; it then polls every 20 µs for a
// millisecond or more before it may sleep again. An agent process is
// idle between phases and makes a system call (its publish) as soon as
// it wakes, so each phase cost it a futex wake-up and dozens of sysmon
// sleeps: context switches, which a virtual machine makes expensive.
// With a schedtrace period set, sysmon never deep-sleeps and backs off
// to one wake-up per 10 ms. On a 2-core Oxide virtual machine, 16
// agent processes ran the quickstart at 445, 428 and 359 rounds/s
// without it and 669, 639 and 565 with it (alternating runs). The period
// is long enough that the runtime prints no trace line, except once at
// start on a host up for longer than 24.8 days; the launcher drops such
// lines (isSchedTrace).
const schedTraceOff = "schedtrace=2147483647"

// childGODEBUG returns the GODEBUG of agent processes given the
// launcher's own (set): set with schedTraceOff added, and true, unless
// set already has a schedtrace of its own (then false: the user's
// setting stands, traces and all).
func childGODEBUG(set string) (string, bool) {
	for _, kv := range strings.Split(set, ",") {
		if k, _, _ := strings.Cut(strings.TrimSpace(kv), "="); k == "schedtrace" {
			return "", false
		}
	}
	if strings.TrimSpace(set) == "" {
		return schedTraceOff, true
	}
	return set + "," + schedTraceOff, true
}

// isSchedTrace reports whether line is a scheduler trace of the Go
// runtime ("SCHED 0ms: gomaxprocs=1 ...").
func isSchedTrace(line string) bool {
	return strings.HasPrefix(line, "SCHED ") && strings.Contains(line, "gomaxprocs=")
}

// childProcs returns the GOMAXPROCS of each of n agent processes on cpus
// CPUs: their share of the CPUs, at least 1, so that n processes do not
// each keep idle threads spinning for work on CPUs the others use (at
// 16 processes on 2 CPUs, 1 instead of 2 cut the run's CPU time by a
// fifth). It returns 0, leaving the children's GOMAXPROCS alone, when
// the user set GOMAXPROCS (set) or when every process gets every CPU.
func childProcs(n, cpus int, set string) int {
	if set != "" || n <= 1 {
		return 0
	}
	g := max(1, cpus/n)
	if g >= cpus {
		return 0
	}
	return g
}
