package main

import (
	"bytes"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// TestVersionFlag: consim --version and -v print what consim version
// prints, and exit 0.
func TestVersionFlag(t *testing.T) {
	_, want, _ := consim(t, "version")
	for _, flag := range []string{"--version", "-v"} {
		code, stdout, stderr := consim(t, flag)
		if code != exitOK || stderr != "" || stdout != want || !strings.HasPrefix(stdout, "consim ") {
			t.Errorf("consim %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", flag, code, stdout, stderr, want)
		}
	}
}

// TestHelpListsExitCodes: the top-level help names every exit code.
func TestHelpListsExitCodes(t *testing.T) {
	_, stdout, _ := consim(t, "--help")
	for code, what := range []string{"success", "the run failed", "usage or input error", "the run diverged", "stopped by a control"} {
		if !strings.Contains(stdout, "\n  "+strconv.Itoa(code)+"  ") || !strings.Contains(stdout, what) {
			t.Errorf("help does not list exit code %d (%s):\n%s", code, what, stdout)
		}
	}
	for _, code := range []int{exitOK, exitFailure, exitUsage, exitDiverged, exitStopped} {
		if code < 0 || code > 4 {
			t.Errorf("exit code %d outside the help's 0-4", code)
		}
	}
}

// TestUnreachableNATSExitsTwo: every command given a NATS server it
// cannot reach says so and exits 2, as for any other bad input.
func TestUnreachableNATSExitsTwo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + l.Addr().String()
	l.Close() // nothing listens there now
	for _, args := range [][]string{
		{"node", "--nats", url, "--run-id", "r", "--id", "0", quickstart},
		{"coordinator", "--nats", url, "--run-id", "r", "--out", t.TempDir(), quickstart},
		{"run", "--nats", url, "--out", t.TempDir(), quickstart},
		{"launch", "--nats", url, "--out", t.TempDir(), quickstart},
		{"sweep", "--nats", url, "--out", t.TempDir(), "--set", "rounds=10", "../../scenarios/dropout_sweep.yaml"},
	} {
		code, _, stderr := consim(t, append(args, "--log-level", "off")...)
		if code != exitUsage || !strings.Contains(stderr, strings.TrimPrefix(url, "nats://")) {
			t.Errorf("consim %s: exit %d, stderr %q; want %d naming %s", args[0], code, stderr, exitUsage, url)
		}
	}
}

// TestTransportFlagValues: a --transport that names no transport is a
// --transport error naming the allowed values, not a scenario key's.
func TestTransportFlagValues(t *testing.T) {
	for _, cmd := range []string{"run", "sweep"} {
		code, _, stderr := consim(t, cmd, "--transport", "tcp", quickstart)
		if code != exitUsage || !strings.Contains(stderr, `--transport "tcp": want one of chan, nats, nats-tcp, stepped`) || strings.Contains(stderr, "runtime.transport") {
			t.Errorf("%s --transport tcp: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

// TestNATSEnvironmentInHelp: every command that connects to a server
// given by --nats names the environment variables of its user and
// password in its help.
func TestNATSEnvironmentInHelp(t *testing.T) {
	for _, cmd := range []string{"run", "sweep", "launch", "node", "coordinator"} {
		_, stdout, _ := consim(t, cmd, "--help")
		for _, env := range []string{"CONSIM_NATS_URL", "CONSIM_NATS_USER", "CONSIM_NATS_PASSWORD_FILE", "CONSIM_NATS_NKEY"} {
			if !strings.Contains(stdout, env) {
				t.Errorf("consim %s --help does not name %s", cmd, env)
			}
		}
	}
}

// TestSummaryTrafficAndOmittedMeasures: the traffic line counts refused
// frames; a run whose consensus error is 0 in every measured round (agents
// holding different blocks) and whose distance to the optimum is unknown
// prints neither, and says once why.
func TestSummaryTrafficAndOmittedMeasures(t *testing.T) {
	row := func(round int, gap float64) *coordinator.Row {
		return &coordinator.Row{Metrics: observe.Metrics{Round: round, OptGap: gap, DistToOpt: math.NaN(), Feasibility: 1}}
	}
	s := &coordinator.Summary{RunID: "r", Status: coordinator.StatusOK, Agents: 6, Rounds: 10, RoundsPlanned: 10, StopCause: coordinator.StopRounds,
		Initial: row(0, 9), Final: row(10, 0),
		Traffic: coordinator.TrafficTotals{MsgsSent: 100, BytesSent: 1000, Refused: 7, SlowConsumer: 2}}
	var b bytes.Buffer
	printSummary(&b, s)
	out := b.String()
	for _, want := range []string{"0 malformed, 7 refused, 2 dropped by a full subscription", "not shown", "consensus error (0 in every measured round", "distance to optimum (no optimal point"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"NaN", "0.0000e+00 -> 0.0000e+00 (round"} {
		if strings.Contains(out, bad) {
			t.Errorf("summary prints %q:\n%s", bad, out)
		}
	}
	if strings.Count(out, "not shown") != 1 {
		t.Errorf("the omitted measures are not named once:\n%s", out)
	}
	// A consensus run keeps both lines.
	s.Initial.ConsensusErr, s.Final.ConsensusErr, s.Final.DistToOpt = 1, 1e-3, 0.5
	b.Reset()
	printSummary(&b, s)
	if out := b.String(); !strings.Contains(out, "consensus error") || !strings.Contains(out, "distance to optimum    5.0000e-01") || strings.Contains(out, "not shown") {
		t.Errorf("consensus run:\n%s", out)
	}
}

// TestProtocolDocExitCodes: docs/protocol.md's table of exit codes is the
// command's.
func TestProtocolDocExitCodes(t *testing.T) {
	b, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## Exit codes\n")
	if !ok {
		t.Fatal("docs/protocol.md has no section Exit codes")
	}
	want := map[int]string{exitOK: "success", exitFailure: "the run failed", exitUsage: "usage or input error",
		exitDiverged: "the run diverged", exitStopped: "the run was stopped by a control its coordinator did not send"}
	seen := 0
	for _, line := range strings.Split(rest, "\n") {
		if line == "" && seen > 0 {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			continue
		}
		code, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue
		}
		if w, ok := want[code]; !ok || !strings.HasPrefix(strings.TrimSpace(cells[1]), w) {
			t.Errorf("exit code %d documented as %q, want %q", code, cells[1], w)
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("the document lists %d exit codes, the command has %d", seen, len(want))
	}
}
