package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// agentGrace is how long agents may keep running after the coordinator
// has ended the run (it sends Stop) before they are cancelled.
var agentGrace = 5 * time.Second

// runFlags are the flags of `consim run`.
type runFlags struct {
	transport string
	natsURL   string
	out       string
	runID     string
	logLevel  string
	sets      []string
	memLimit  string
	sec       natsSecurity
}

// bind adds the flags of `consim run` to cmd.
func (f *runFlags) bind(cmd *cobra.Command) {
	addTransportFlag(cmd, &f.transport, "", "transport: chan (in-memory), nats (embedded server, in-process; the default), nats-tcp (embedded server on loopback TCP, or --nats URL)")
	addNATSFlag(cmd, &f.natsURL, "`URL` of an external NATS server, e.g. nats://127.0.0.1:4222 (implies --transport nats-tcp)")
	addOutFlag(cmd, &f.out, "results root `DIR` (scenario output.dir); the bundle is DIR/<run-id>")
	addRunIDFlag(cmd, &f.runID, "run `ID` (default: <name>-<UTC time>-<random>)")
	addLogLevelFlag(cmd, &f.logLevel, "info", "log `level`")
	addSetFlag(cmd, &f.sets, ", e.g. --set graph.p=0.3")
	addMemoryLimitFlag(cmd, &f.memLimit)
	addNATSSecurityFlags(cmd, &f.sec)
}

// scenario loads the scenario at path with the --set overrides and those
// that --transport, --nats and --out stand for.
func (f *runFlags) scenario(cmd *cobra.Command, path string) (*scenarios.Scenario, error) {
	transport, url, err := transportAndURL(cmd.Flags(), f.transport, f.natsURL)
	if err != nil {
		return nil, err
	}
	if err := f.sec.export(); err != nil {
		return nil, err
	}
	s, err := loadScenario(path, runtimeOverrides(memoryLimitOverride(f.sets, f.memLimit), transport, url, f.out))
	if err != nil {
		return nil, err
	}
	// runtime.nats_url is written to the bundle's scenario.yaml.
	if err := checkNATSURL(s.Runtime.NATSURL); err != nil {
		return nil, err
	}
	return s, nil
}

func (a *app) runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run SCENARIO",
		Short: "run a scenario: agents, transport and coordinator in this process",
		Long: `Run loads SCENARIO (a YAML file), applies the --set overrides, and runs
every agent as a goroutine of this process with the coordinator beside
them, on the scenario's transport: nats (the default) embeds a NATS server
and connects in-process; nats-tcp serves it on loopback, or uses --nats
URL; chan exchanges messages over in-memory channels.

It shows progress on stderr, prints a summary on stdout and writes the
results bundle to DIR/<run-id> (--out, else the scenario's output.dir).
A scenario's sweep block is ignored: see 'consim sweep'.`,
		Example: `  consim run scenarios/quickstart.yaml
  consim run scenarios/quickstart.yaml --transport chan --set rounds=500 --set graph.p=0.3
  CONSIM_NATS_URL=nats://10.0.0.5:4222 consim run scenarios/quickstart.yaml --run-id r1`,
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
	f.bind(cmd)
	cmd.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		logger, err := newLogger("consim", f.logLevel, a.stderr)
		if err != nil {
			return err
		}
		s, err := f.scenario(cmd, args[0])
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		sum, err := runScenario(ctx, s, f.runID, logger, newProgressPrinter(a.stderr))
		if sum != nil {
			printSummary(a.stdout, sum)
		}
		return err
	})
	return cmd
}

// runScenario runs s with every agent as a goroutine of this process on
// the scenario's transport, and the coordinator beside them.
func runScenario(ctx context.Context, s *scenarios.Scenario, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	st, err := buildScenario(s)
	if err != nil {
		return nil, err
	}
	return runAgents(ctx, st, nil, runID, logger, progress)
}

// runAgents runs st (with agents instead of its own, when not nil) through
// sim.RunSetup; the caller's input errors become usage errors.
func runAgents(ctx context.Context, st *scenarios.Setup, agents []consensus.Agent, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	sum, err := sim.RunSetup(ctx, st, sim.Options{RunID: runID, Logger: logger, Observe: progress, Agents: agents, AgentGrace: agentGrace})
	if errors.Is(err, sim.ErrInput) {
		err = usageError{err}
	}
	return sum, err
}
