package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
)

// Network faults on real TCP paths. Each agent is a `consim node` process
// in a Linux network namespace of its own, joined to the host by a veth
// pair; the NATS server listens on the host's loopback, which the
// namespaces cannot reach, so every agent's connection goes through its
// own faultProxy on the host side of its veth pair. The coordinator runs
// on the host. A row injects a fault on agent 2's path while the run is
// live and checks what the runtime counted against what was injected:
// delays and bandwidth limits that miss no deadline leave the result
// bit-identical to an in-process run of the same scenario (and count no
// dropout); a stall longer than the phase deadline is counted as
// dropouts on agent 2's edges, within the bound the stall gives, and
// fewer on the other edges (a neighbour that waited out a deadline for
// agent 2 is late for its own neighbours); after a connection reset the
// client reconnects and the run ends ok.
//
// It needs root and `ip netns` (iproute2); without them each row is
// skipped with the reason.

// netAgent is the agent whose path the network rows fault.
const netAgent = 2

// netSets are the scenario settings of the network rows: 4 agents of the
// quickstart problem (a ring whose links are up with p = 0.7), a phase
// deadline of 300 ms.
func netSets(rounds int) []string {
	return []string{"agents=4", "rounds=" + strconv.Itoa(rounds), "metrics.every=50",
		"runtime.phase_deadline=300ms", "runtime.agent_timeout=10s"}
}

// netnsReady reports why the network rows cannot run here, or nil.
func netnsReady() error {
	if os.Geteuid() != 0 {
		return errors.New("needs root (network namespaces)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("needs the ip command (iproute2)")
	}
	ns := "consim-probe-" + randHex(3)
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add: %v: %s", err, bytes.TrimSpace(out))
	}
	_ = exec.Command("ip", "netns", "del", ns).Run()
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// labSeq numbers the labs, for their subnets.
var labSeq atomic.Int64

// netLab is n namespaces, their veth pairs and the proxies in front of
// the server at upstream.
type netLab struct {
	ns      []string
	urls    []string
	proxies []*faultProxy
}

// newNetLab builds the namespaces of n agents: agent i's namespace has
// 10.213.s.2 on its end of the veth pair, the host 10.213.s.1, where
// agent i's proxy listens (s = the lab's base + i).
func newNetLab(n int, upstream string) (*netLab, error) {
	l := &netLab{}
	tag := randHex(2)
	base := int(labSeq.Add(1)*8) % 248
	for i := range n {
		ns := fmt.Sprintf("consim-%s-%d", tag, i)
		host, peer := fmt.Sprintf("cs%sh%d", tag, i), fmt.Sprintf("cs%sn%d", tag, i)
		hostIP, nsIP := fmt.Sprintf("10.213.%d.1", base+i), fmt.Sprintf("10.213.%d.2", base+i)
		steps := [][]string{
			{"netns", "add", ns},
			{"link", "add", host, "type", "veth", "peer", "name", peer},
			{"link", "set", peer, "netns", ns},
			{"addr", "add", hostIP + "/24", "dev", host},
			{"link", "set", host, "up"},
			{"netns", "exec", ns, "ip", "addr", "add", nsIP + "/24", "dev", peer},
			{"netns", "exec", ns, "ip", "link", "set", peer, "up"},
			{"netns", "exec", ns, "ip", "link", "set", "lo", "up"},
		}
		l.ns = append(l.ns, ns)
		for _, s := range steps {
			if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
				l.close()
				return nil, fmt.Errorf("ip %s: %v: %s", strings.Join(s, " "), err, bytes.TrimSpace(out))
			}
		}
		p, err := newFaultProxy(net.JoinHostPort(hostIP, "4222"), upstream)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("proxy for agent %d: %w", i, err)
		}
		l.proxies = append(l.proxies, p)
		l.urls = append(l.urls, "nats://"+net.JoinHostPort(hostIP, "4222"))
	}
	return l, nil
}

// close removes the proxies and the namespaces (with their veth pairs).
func (l *netLab) close() {
	for _, p := range l.proxies {
		_ = p.close()
	}
	for _, ns := range l.ns {
		_ = exec.Command("ip", "netns", "del", ns).Run()
	}
}

// netRun is one run of the network rows: its summary, final iterates and
// the coordinator's exit code.
type netRun struct {
	sum  *coordinator.Summary
	fin  *coordinator.FinalIterates
	code int
}

// runInLab runs the scenario with netSets(rounds): the coordinator on the
// host, agent i in namespace i through its proxy. fault is called once
// the run is live and says what it injected.
func (d *drill) runInLab(ctx context.Context, rounds int, fault func(*netLab) string) (*netRun, string, error) {
	srv, err := d.server(nil)
	if err != nil {
		return nil, "", err
	}
	defer stopServer(srv)
	lab, err := newNetLab(4, srv.Addr().String())
	if err != nil {
		return nil, "", err
	}
	defer lab.close()
	id, out := d.newRun()
	var sets []string
	for _, s := range netSets(rounds) {
		sets = append(sets, "--set", s)
	}
	env := append(os.Environ(), node.EnvRunKey+"="+hex.EncodeToString(randBytes(32)))
	coord := exec.Command(d.exe, append([]string{"coordinator", d.scenario, "--nats", srv.ClientURL(), "--run-id", id, "--out", out, "--log-level", "error"}, sets...)...)
	coord.Env = env
	cr := &liveRun{id: id, out: out, cmd: coord, done: make(chan struct{})}
	coord.Stderr = &cr.stderr
	if err := coord.Start(); err != nil {
		return nil, "", err
	}
	go func() { _ = coord.Wait(); cr.code = coord.ProcessState.ExitCode(); close(cr.done) }()
	var agents []*exec.Cmd
	defer func() {
		for _, a := range agents {
			_ = a.Process.Kill()
			_ = a.Wait()
		}
	}()
	for i := range 4 {
		args := append([]string{"netns", "exec", lab.ns[i], d.exe, "node", d.scenario, "--nats", lab.urls[i], "--run-id", id, "--id", strconv.Itoa(i), "--log-level", "error"}, sets...)
		a := exec.Command("ip", args...)
		a.Env = env
		if err := a.Start(); err != nil {
			_ = coord.Process.Kill()
			return nil, "", err
		}
		agents = append(agents, a)
	}
	if err := cr.waitLive(ctx); err != nil {
		_ = coord.Process.Kill()
		return nil, "", err
	}
	injected := fault(lab)
	sum, fin, err := cr.wait(ctx)
	if err != nil {
		return nil, injected, err
	}
	return &netRun{sum: sum, fin: fin, code: cr.code}, injected, nil
}

// chanReference runs the scenario with netSets(rounds) in one process on
// the chan transport: the iterates a run without faults must reproduce.
func (d *drill) chanReference(ctx context.Context, rounds int) (*coordinator.FinalIterates, error) {
	id, out := d.newRun()
	args := []string{"run", d.scenario, "--run-id", id, "--out", out, "--log-level", "error", "--transport", "chan"}
	for _, s := range netSets(rounds) {
		args = append(args, "--set", s)
	}
	cmd := exec.CommandContext(ctx, d.exe, args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("reference run: %v: %s", err, lastLine(string(b)))
	}
	var fin coordinator.FinalIterates
	if err := readJSON(filepath.Join(out, id, coordinator.FinalFile), &fin); err != nil {
		return nil, err
	}
	return &fin, nil
}

// netRows are the network rows.
func netRows() []attack {
	return []attack{
		{"latency 5 ms each way on agent 2's TCP path (netns)", netDelay(5*time.Millisecond, 0)},
		{"bandwidth 64 KB/s on agent 2's TCP path (netns)", netDelay(0, 64<<10)},
		{"stall of agent 2's TCP path for 1.5 s (netns)", netStall},
		{"connection reset on agent 2's TCP path (netns)", netReset},
	}
}

// labRounds are the rounds of the delay rows (each round waits for the
// delayed path) and of the stall and reset rows (long enough to be live
// when the fault comes, and to run on after it).
const (
	delayRounds = 300
	faultRounds = 3000
)

// skipped returns the row of a network drill this machine cannot run.
func skipped(why error) row {
	return row{happened: "skipped: " + why.Error(), affected: "-", status: "-", exit: "-", skip: true}
}

// netDelay injects a latency (each way) or a bandwidth limit on agent 2's
// path for the whole run: no deadline is missed, so the run counts no
// dropout and its iterates equal the in-process run's bit for bit.
func netDelay(latency time.Duration, rate int) func(context.Context, *drill) row {
	return func(ctx context.Context, d *drill) row {
		if err := netnsReady(); err != nil {
			return skipped(err)
		}
		ref, err := d.chanReference(ctx, delayRounds)
		if err != nil {
			return row{err: err}
		}
		r, injected, err := d.runInLab(ctx, delayRounds, func(l *netLab) string {
			l.proxies[netAgent].set(latency, rate)
			if rate > 0 {
				return fmt.Sprintf("agent 2's path limited to %d bytes/s once the run was live", rate)
			}
			return fmt.Sprintf("agent 2's path delayed by %v each way once the run was live", latency)
		})
		if err != nil {
			return row{err: err}
		}
		res := row{status: r.sum.Status + "/" + r.sum.StopCause, exit: strconv.Itoa(r.code)}
		tr := r.sum.Traffic
		res.happened = fmt.Sprintf("%s; %d rounds at %.0f rounds/s, %d dropouts, %d late", injected, r.sum.Rounds, r.sum.RoundsPerSec, tr.Dropouts, tr.Late)
		switch err := sameIterates(ref, r.fin); {
		case err != nil:
			res.affected = "yes: " + err.Error()
			res.err = err
		default:
			res.affected = "no (bit-identical to the in-process run)"
		}
		if res.err == nil && (r.code != 0 || r.sum.Status != coordinator.StatusOK || tr.Dropouts != 0 || tr.ReduceMissing != 0) {
			res.err = fmt.Errorf("exit %d, status %s, %d dropouts, %d reduce terms missing: want 0, ok, none", r.code, r.sum.Status, tr.Dropouts, tr.ReduceMissing)
		}
		return res
	}
}

// edgeCounts splits the dropouts by edge into those of agent a's two
// ring edges (a-1, a and a, a+1 of n agents) and the sum over the other
// edges, and lists them all.
func edgeCounts(byEdge map[string]int64, a, n int) (on [2]int64, off int64, list string) {
	key := func(i, j int) string { return fmt.Sprintf("%d-%d", min(i, j), max(i, j)) }
	mine := [2]string{key((a+n-1)%n, a), key(a, (a+1)%n)}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(byEdge)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, byEdge[k]))
		switch k {
		case mine[0]:
			on[0] = byEdge[k]
		case mine[1]:
			on[1] = byEdge[k]
		default:
			off += byEdge[k]
		}
	}
	return on, off, strings.Join(parts, ", ")
}

// netStall stalls agent 2's path for S = 1.5 s, five phase deadlines
// D = 300 ms. Each of agent 2's two edges loses frames both ways while
// the stall lasts, at most one per phase deadline waited out on each side
// of it: between 1 and 2(ceil(S/D)+1) = 12 on each edge, 2 p S/D = 7
// expected with the links up with p = 0.7 (and one exchanging phase per
// round). The neighbours, having waited out deadlines for agent 2, are
// late for their other neighbours: the other edges may count dropouts
// too, fewer than agent 2's.
func netStall(ctx context.Context, d *drill) row {
	if err := netnsReady(); err != nil {
		return skipped(err)
	}
	const stall, deadline = 1500 * time.Millisecond, 300 * time.Millisecond
	r, injected, err := d.runInLab(ctx, faultRounds, func(l *netLab) string {
		l.proxies[netAgent].stall(stall)
		return fmt.Sprintf("agent 2's path stalled for %v (phase deadline %v)", stall, deadline)
	})
	if err != nil {
		return row{err: err}
	}
	res, on, off := faultRow(r, injected)
	most := 2 * (int64((stall+deadline-1)/deadline) + 1)
	switch {
	case res.err != nil:
	case min(on[0], on[1]) < 1 || max(on[0], on[1]) > most:
		res.err = fmt.Errorf("dropouts on agent 2's edges %d and %d: want 1 to %d each", on[0], on[1], most)
	case off > on[0]+on[1]:
		res.err = fmt.Errorf("%d dropouts on the edges without agent %d, more than the %d on its own", off, netAgent, on[0]+on[1])
	}
	return res
}

// netReset resets agent 2's connection once: the client reconnects
// through the proxy, frames sent to agent 2 while it was away are lost
// and counted as dropouts, and the run ends ok. A reset costs a deadline
// or two, so its dropouts and their cascade to the other edges are of
// the same few; the row reports them and checks the run's end.
func netReset(ctx context.Context, d *drill) row {
	if err := netnsReady(); err != nil {
		return skipped(err)
	}
	r, injected, err := d.runInLab(ctx, faultRounds, func(l *netLab) string {
		n := l.proxies[netAgent].reset()
		return fmt.Sprintf("%d connection of agent 2 reset (RST both ways)", n)
	})
	if err != nil {
		return row{err: err}
	}
	res, _, _ := faultRow(r, injected)
	return res
}

// faultRow checks that a run whose agent 2 had a fault on its path ends
// ok with exit 0. It returns the row, the dropouts on agent 2's two edges
// and the sum over the other edges.
func faultRow(r *netRun, injected string) (row, [2]int64, int64) {
	tr := r.sum.Traffic
	on, off, list := edgeCounts(tr.DropoutsByEdge, netAgent, 4)
	res := row{status: r.sum.Status + "/" + r.sum.StopCause, exit: strconv.Itoa(r.code)}
	res.happened = fmt.Sprintf("%s; dropouts by edge {%s}, %d late, %d reduce terms missing", injected, list, tr.Late, tr.ReduceMissing)
	res.affected = "yes: dropouts"
	if tr.Dropouts == 0 {
		res.affected = "no dropouts"
	}
	if r.code != 0 || r.sum.Status != coordinator.StatusOK {
		res.err = fmt.Errorf("exit %d, status %s: want 0, ok", r.code, r.sum.Status)
	}
	return res, on, off
}
