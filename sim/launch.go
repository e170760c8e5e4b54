package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
)

// DefaultStopGrace is how long agent processes have to end on their own
// after the coordinator is done, and again after SIGTERM before SIGKILL.
const DefaultStopGrace = 5 * time.Second

// nodeUsageExit is the exit status of `consim node` when it rejects its
// arguments: such an agent process will never be ready.
const nodeUsageExit = 2

// LaunchOptions configure Launch. The zero value of a field is its
// documented default.
type LaunchOptions struct {
	// Path is the scenario file the agent processes load, Sets the
	// overrides they apply to it, as given (the launcher's own scenario
	// is the Setup given to Launch).
	Path string
	Sets []string
	// NATSURL is an external NATS server; empty starts one on 127.0.0.1 at
	// a free port that admits only the run's users.
	NATSURL string
	// RunID names the run; empty generates one (NewRunID).
	RunID string
	// NodeLogLevel is the agent processes' log level (default warn).
	NodeLogLevel string
	// ReadyTimeout is how long to wait for every agent process to be
	// ready (default coordinator.DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// Grace is how long agent processes have to exit after the run, and
	// after SIGTERM before SIGKILL (default DefaultStopGrace).
	Grace time.Duration
	// Secure, if set, completes the launcher's connection to the external
	// server NATSURL (credentials, TLS files); ChildArgs are the flags that
	// give the agent processes the same (paths only).
	Secure    func(*node.NATSOptions) error
	ChildArgs []string
	// Exe is the consim binary the agents run; empty: this executable.
	Exe string
	// Started, if set, is called with each agent's id and process id once
	// it has started.
	Started func(id, pid int)
	// Stderr receives the agent processes' stderr lines, prefixed with the
	// agent; nil discards them. Give the logger and Progress the same
	// SyncWriter so that their lines do not interleave.
	Stderr *SyncWriter
	// Logger receives the launcher's and the coordinator's logs; nil
	// discards them.
	Logger hclog.Logger
	// Progress, if set, is the coordinator's progress callback.
	Progress func(coordinator.Progress)
}

// Launch runs st with every agent as its own `consim node` process and
// the coordinator in this process, over the NATS server at o.NATSURL or
// one started here on loopback. Agent processes end on their own after
// the run; those still running o.Grace later, or when ctx ends, get
// SIGTERM, and SIGKILL after another o.Grace. Launch returns once every
// agent process has exited; the error joins the coordinator's and one
// *ChildError per agent process that failed on its own. Errors of the
// caller's input wrap ErrInput.
func Launch(ctx context.Context, st *scenarios.Setup, o LaunchOptions) (*coordinator.Summary, error) {
	s := st.Scenario
	if o.Grace <= 0 {
		o.Grace = DefaultStopGrace
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = coordinator.DefaultReadyTimeout
	}
	if o.NodeLogLevel == "" {
		o.NodeLogLevel = "warn"
	}
	logger := o.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if s.Runtime.Transport == scenarios.TransportStepped {
		return nil, inputError{errors.New("runtime.transport = stepped: the stepped engine runs every agent in one process; use consim run or consim scale, or a chan or nats transport with launch")}
	}
	if s.Runtime.Workers > 0 {
		return nil, inputError{fmt.Errorf("runtime.workers = %d: oracle worker processes are not launched yet; use runtime.workers: 0 (each agent process evaluates its own requests) or consim run", s.Runtime.Workers)}
	}
	path, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, inputError{fmt.Errorf("scenario path: %w", err)}
	}
	exe := o.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find the consim executable: %w", err)
		}
	}
	runID := o.RunID
	if runID == "" {
		runID = NewRunID(s.Name)
	}
	if err := CheckRunID(s, runID); err != nil {
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
	url := o.NATSURL
	secure := o.Secure
	childArgs := o.ChildArgs
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
	tr, obs, err := DialObserver(s, url, runID, key, secure, logger)
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
	sup := &supervisor{out: o.Stderr, env: env, envFor: childEnv, skip: skip, onExit: func(c *child) {
		err := c.failure()
		var ce *ChildError
		if !errors.As(err, &ce) {
			return
		}
		logger.Error("agent process failed", "agent", c.name, "pid", ce.PID, "status", ce.Status)
		if ce.Code == nodeUsageExit {
			// It rejected its arguments and will never be ready.
			cancel()
			return
		}
		reported.Store(c.id, true)
		lost <- coordinator.Lost{ID: c.id, PID: ce.PID, Reason: "process exited: " + ce.Status}
	}}
	for i := range s.Agents {
		args := append([]string{"node", "--nats", url, "--run-id", runID, "--id", strconv.Itoa(i), "--log-level", o.NodeLogLevel}, childArgs...)
		for _, kv := range o.Sets {
			args = append(args, "--set", kv)
		}
		c, err := sup.start("agent "+strconv.Itoa(i), i, exe, append(args, path)...)
		if err != nil {
			cancel()
			sup.stop(o.Grace)
			return nil, fmt.Errorf("launch agent %d: %w", i, err)
		}
		if o.Started != nil {
			o.Started(i, c.cmd.Process.Pid)
		}
	}
	logger.Info("agent processes started", "run", runID, "agents", s.Agents, "nats", RedactURL(url))

	sum, runErr := Coordinate(coordCtx, st, runID, tr, obs, CoordinateOptions{ReadyTimeout: o.ReadyTimeout, Lost: lost, Logger: logger, Progress: o.Progress})
	if ctx.Err() == nil {
		// After the last round or the coordinator's stop, agents exit.
		sup.wait(o.Grace)
	}
	sup.stop(o.Grace)
	errs := []error{runErr}
	for _, err := range sup.failures() {
		var ce *ChildError
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
// to one wake-up per 10 ms (docs/benchmarks.md, Process mode, has what
// that is worth). The period is long enough that the runtime prints no
// trace line, except once at start on a host up for longer than 24.8
// days; the launcher drops such lines (isSchedTrace).
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
// each keep idle threads spinning for work on CPUs the others use. It
// returns 0, leaving the children's GOMAXPROCS alone, when
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
