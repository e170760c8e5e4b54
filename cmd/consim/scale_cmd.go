package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/internal/proc"
	"github.com/consim/consim/sim"
)

func (a *app) scaleCmd() *cobra.Command {
	var f runFlags
	var asJSON bool
	cmd := scenarioCmd("scale", "run a scenario and report its start-up time, rounds/s and peak memory")
	f.bind(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	var cpuProfile, memProfile string
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command (pprof format) to `file`")
	cmd.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile (pprof format) taken just after round 0 to `file`")
	cmd.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		began := time.Now()
		if cpuProfile != "" {
			stop, err := proc.StartCPUProfile(cpuProfile)
			if err != nil {
				return usagef("--cpuprofile: %v", err)
			}
			defer stop()
		}
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
		fmt.Fprintf(a.stderr, "building %d agents' graph, problem data and constants\n", s.Agents)
		st, err := buildScenario(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "built in %.2f s; starting the agents\n", time.Since(began).Seconds())
		res, runErr := sim.Scale(ctx, st, began, func() {
			if memProfile != "" {
				if err := proc.WriteHeapProfile(memProfile); err != nil {
					logger.Warn("heap profile", "error", err)
				}
			}
			fmt.Fprintf(a.stderr, "round 0 measured %.2f s after start\n", time.Since(began).Seconds())
		}, sim.Options{RunID: f.runID, Logger: logger, AgentGrace: agentGrace})
		if res == nil {
			return inputErr(runErr)
		}
		if asJSON {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				return err
			}
		} else if err := res.WriteText(a.stdout); err != nil {
			return err
		}
		return inputErr(runErr)
	})
	return cmd
}
