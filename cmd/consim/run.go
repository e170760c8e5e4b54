package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator/live"
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
	ui        string
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
	addUIFlag(cmd, &f.ui)
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
		Use:               "run SCENARIO",
		Short:             "run a scenario: agents, transport and coordinator in this process",
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
	withHelp(cmd, "run")
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
		runID := f.runID
		if runID == "" {
			runID = sim.NewRunID(s.Name)
		}
		ui, err := startUI(a.stderr, f.ui, live.Info{RunID: runID, Scenario: s.Name, Agents: s.Agents, Rounds: s.Rounds})
		if err != nil {
			return err
		}
		defer ui.Stop()
		st, err := buildScenario(s)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		sum, err := sim.RunSetup(ctx, st, sim.Options{RunID: runID, Logger: logger, Observe: ui.Tee(newProgressPrinter(a.stderr)), AgentGrace: agentGrace})
		err = inputErr(err)
		ui.End(sum, err)
		if sum != nil {
			printSummary(a.stdout, sum)
		}
		return err
	})
	return cmd
}

// inputErr makes an error of the library's caused by the caller's input
// (sim.ErrInput) a usage error.
func inputErr(err error) error {
	if errors.Is(err, sim.ErrInput) && !isUsage(err) {
		return usageError{err}
	}
	return err
}
