package node

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/consim/consim/graph"
)

// TestFloodOfFarFutureFrames floods agent 0 of a live NATS run with data
// frames for a far-future round that carry a valid MAC (an insider with
// the run key: the worst case, since frames without it are refused
// before any queue). The frames are for the last round, so they are far
// ahead of the agent for all but the last rounds: they are dropped on
// arrival by the agents' connection, before any queue, and counted
// (Traffic.Ahead; or by the NATS client as slow-consumer events), the heap stays within a bound independent of the
// flood, and the run ends unchanged: every round, no dropout, iterates
// bit-identical to the lockstep reference. The round rate with and
// without the flood is logged. 100,000 frames by default; 1,000,000 with
// CONSIM_LONG=1.
func TestFloodOfFarFutureFrames(t *testing.T) {
	frames := 100_000
	if os.Getenv("CONSIM_LONG") == "1" {
		frames = 1_000_000
	}
	const n, rounds = 8, 3000
	g := ring(t, n)
	want := nullAgents(t, g, 10)
	lockstep(t, want, rounds)

	run := func(flood int) (rate float64, peak uint64, res observed) {
		tr := attackTransport(t, TransportNATS, "flooded")
		agents := nullAgents(t, g, 10)
		nc := outsider(t, tr)
		frame := mustFrameTo(t, FrameData, 1, []int{0}, rounds-1, 0, make([]float64, 10)) // far ahead until the end
		var wg sync.WaitGroup
		var stop atomic.Bool
		var sampled atomic.Uint64
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		wg.Add(1)
		go func() { // heap sampler
			defer wg.Done()
			var m runtime.MemStats
			for !stop.Load() {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > base.HeapInuse && m.HeapInuse-base.HeapInuse > sampled.Load() {
					sampled.Store(m.HeapInuse - base.HeapInuse)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		var begin time.Time
		inject := func() {
			begin = time.Now()
			if flood == 0 {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range flood {
					if err := tr.mac.seal(macAgent, frame, func(m []byte) error { return nc.Publish(SubjectAgent(tr.opts.RunID, 1), m) }); err != nil {
						if err != nats.ErrConnectionClosed {
							t.Error(err)
						}
						return
					}
				}
			}()
		}
		res, _ = runAttacked(t, tr, agents, Options{Rounds: rounds, PhaseDeadline: 10 * time.Second}, inject)
		elapsed := time.Since(begin)
		stop.Store(true)
		wg.Wait()
		sameBits(t, agents, want)
		for i, s := range res.terminal {
			if s.Kind != StatusFinal || s.Report.Round != rounds || s.Traffic.Dropouts != 0 {
				t.Errorf("agent %d: %s after round %d with %d dropouts", i, s.Kind, s.Report.Round, s.Traffic.Dropouts)
			}
		}
		return float64(rounds) / elapsed.Seconds(), sampled.Load(), res
	}

	rate0, peak0, _ := run(0)
	rate, peak, res := run(frames)
	tr0 := res.terminal[0].Traffic
	t.Logf("%d far-future frames to agent 0: %.0f rounds/s (%.0f without), heap peak +%.1f MB (+%.1f MB without); agent 0 dropped %d ahead, %d at a full queue; %d slow-consumer events",
		frames, rate, rate0, float64(peak)/(1<<20), float64(peak0)/(1<<20), tr0.Ahead, tr0.InboxOverflow, tr0.SlowConsumer)
	if tr0.Ahead == 0 {
		t.Errorf("agent 0 counted no frame ahead of its window: %+v", tr0)
	}
	if tr0.Ahead+tr0.InboxOverflow+tr0.Unexpected+tr0.Late > int64(frames) {
		t.Errorf("agent 0 dropped %d frames, more than the %d sent", tr0.Ahead+tr0.InboxOverflow, frames)
	}
	// The bound: what the flood can hold up is the embedded server's
	// queue for the agents' connection (natsMaxPending, 256 MiB; it makes
	// the flooder wait beyond 3/4 of it) and the client's pending limit
	// (natsPendingMsgs); the agents drop every frame on arrival. The
	// unbounded list this replaces grew by ~200 bytes per frame, 630 MB
	// for 3,000,000 frames.
	const bound = natsMaxPending + natsMaxPending/4
	if peak > peak0+bound {
		t.Errorf("heap grew by %.1f MB under the flood, %.1f MB without: more than %d MB apart",
			float64(peak)/(1<<20), float64(peak0)/(1<<20), bound>>20)
	}
}

// Flood benchmark: the NATS server and the flooder each run in a child
// process (this test binary, re-executed with floodChildEnv set to
// "server" or "flooder"), as they would on other hosts: the agents'
// process measures only what the flood costs the agents, and the
// flooder competes with the server as another process, not as a
// goroutine inside it.
const floodChildEnv = "CONSIM_FLOOD_CHILD"

// floodUsersEnv, in the children's environment, is the password of the
// server's users (see floodServer); empty, the server admits anyone.
const floodUsersEnv = "CONSIM_FLOOD_USERS"

func TestMain(m *testing.M) {
	switch os.Getenv(floodChildEnv) {
	case "server":
		os.Exit(floodServer(os.Stdin, os.Stdout))
	case "flooder":
		os.Exit(flooder(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// floodTenantEnv, in the children's environment, says how the server
// keeps the flooding tenant from the run (see floodServer).
const floodTenantEnv = "CONSIM_FLOOD_TENANT"

// floodServer serves a NATS server on loopback, prints its URL and runs
// until the end of its input.
//
// With floodUsersEnv set to a password, the server admits only the user
// "agents" (that password; every subject) and the user "tenant" (the
// same password): another user of a shared server. With floodTenantEnv
// "permissions" both are in one account and the tenant may publish only
// on tenant.>, so the server refuses its publishes on the run's subjects
// one by one; with "account" the tenant is in an account of its own,
// where the run's subjects have no subscriber.
func floodServer(in io.Reader, out io.Writer) int {
	var srv *server.Server
	var err error
	pw := os.Getenv(floodUsersEnv)
	switch os.Getenv(floodTenantEnv) {
	case "account":
		run, tenant := server.NewAccount("run"), server.NewAccount("tenant")
		srv, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
			MaxPayload: natsMaxPayload, MaxPending: natsMaxPending, Accounts: []*server.Account{run, tenant},
			Users: []*server.User{{Username: "agents", Password: pw, Account: run}, {Username: "tenant", Password: pw, Account: tenant}}})
		if err == nil {
			srv.Start()
			if !srv.ReadyForConnections(5 * time.Second) {
				err = errors.New("server not ready")
			}
		}
	case "permissions":
		srv, err = StartNATSServer(NATSServerOptions{Port: -1, Users: []NATSUser{
			{Name: "agents", Password: pw},
			{Name: "tenant", Password: pw, Publish: []string{"tenant.>"}, Subscribe: []string{"tenant.>"}},
		}})
	default:
		srv, err = StartNATSServer(NATSServerOptions{Port: -1})
	}
	if err != nil {
		fmt.Fprintln(out, "error", err)
		return 1
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	fmt.Fprintln(out, srv.ClientURL())
	_, _ = io.Copy(io.Discard, in)
	return 0
}

// flooder reads one line "flood URL RUN KEYHEX N ROUND RATE", publishes N
// data frames of agent 1 for round ROUND to agent 0 on the server at URL,
// sealed with the key (an insider), RATE frames a second (0: as fast as
// the connection takes them), and prints "done". With floodUsersEnv set,
// it connects as the user "tenant" (see floodServer). With FLOOD_HOG set
// to a duration it publishes nothing: it only keeps its CPU busy that
// long, which is what any flooder costs a server it shares a CPU with.
func flooder(in io.Reader, out io.Writer) int {
	var url, run, keyHex string
	var n, round, perSecond int
	if _, err := fmt.Fscanf(in, "flood %s %s %s %d %d %d\n", &url, &run, &keyHex, &n, &round, &perSecond); err != nil {
		fmt.Fprintln(out, "error", err)
		return 1
	}
	if d, err := time.ParseDuration(os.Getenv("FLOOD_HOG")); err == nil {
		for start := time.Now(); time.Since(start) < d; {
		}
		fmt.Fprintln(out, "done")
		return 0
	}
	key, _ := hex.DecodeString(keyHex)
	var auth []nats.Option
	if pw := os.Getenv(floodUsersEnv); pw != "" {
		// Each refused publish costs the tenant an -ERR, not its
		// connection; the errors are expected.
		auth = append(auth, nats.UserInfo("tenant", pw), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	}
	nc, err := nats.Connect(url, auth...)
	if err != nil {
		fmt.Fprintln(out, "error", err)
		return 1
	}
	// The attacker seals one frame and publishes it n times.
	var msg []byte
	frame, _ := AppendFrameTo(nil, FrameData, 1, []int{0}, round, 0, make([]float64, 10))
	_ = newMacer(key, run).seal(macAgent, frame, func(m []byte) error { msg = append(msg, m...); return nil })
	subject := SubjectAgent(run, 1)
	start := time.Now()
	for k := range n {
		if err := nc.Publish(subject, msg); err != nil {
			fmt.Fprintln(out, "error", err)
			return 1
		}
		if perSecond > 0 && k%1000 == 999 {
			if ahead := time.Duration(float64(k+1)/float64(perSecond)*float64(time.Second)) - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
	}
	err = nc.FlushTimeout(time.Minute)
	nc.Close()
	if err != nil {
		fmt.Fprintln(out, "error", err)
		return 1
	}
	fmt.Fprintln(out, "done")
	return 0
}

// BenchmarkFlood floods agent 1's subject of a live run of 8 null agents
// (dimension 10, over TCP to a server in another process, joined with a
// subscription per sender, NATSOptions.Agents) with 3,000,000 data frames.
// It reports the agents' process heap growth during the flood over the
// heap just before it (MB_grown; the target is < 50), the round rate
// during the flood over the rate just before it (rate_ratio), both within
// one run, and the dropouts on agent 1's edges and on the others
// (dropouts_other_edges; it must be 0, or the benchmark fails). Run it
// with -benchtime=1x; FLOOD_FRAMES overrides the number of frames,
// FLOOD_RATE paces them (frames a second; default 0, as fast as the
// flooder's connection takes them) and FLOOD_DEADLINE sets the phase
// deadline (default 10s). FLOOD_HOG replaces the flood by a process that
// only keeps the server's CPU busy (see flooder): the ceiling of
// rate_ratio that the shared CPU sets.
//
//   - insider-open-server: the server admits anyone and the frames, for
//     a far-future round, are sealed with the run key (an insider). Every
//     frame reaches the agents' process, which drops it on its header.
//     The agents form a ring.
//   - outsider-open-server: the server admits anyone and the frames, for
//     round 0, carry a MAC under another key. Every frame reaches the
//     agents' process, which must check its MAC; the flood outruns the
//     checks and overflows agent 1's subscription, which drops frames (a
//     slow consumer). Agent 1 has no edge here (the others form a ring):
//     its own frames, lost with the flood's, would cost its neighbours a
//     phase deadline each, which only permissions prevent; what is left
//     is what the flood costs the frames and the CPU of the others.
//   - tenant-permissions: the server admits only its users, as a server
//     consim starts or one configured with the run's permissions does; the
//     flooder is another user of the server, whose publishes on the run's
//     subjects the server refuses, one -ERR each.
//   - tenant-account: the flooder is a user of another account of the
//     server, as a shared server that gives consim an account of its own
//     does: the run's subjects in the flooder's account have no
//     subscriber, and the server drops its publishes.
func BenchmarkFlood(b *testing.B) {
	frames := 3_000_000
	if s := os.Getenv("FLOOD_FRAMES"); s != "" {
		if _, err := fmt.Sscan(s, &frames); err != nil {
			b.Fatalf("FLOOD_FRAMES=%q: %v", s, err)
		}
	}
	perSecond := 0
	if s := os.Getenv("FLOOD_RATE"); s != "" {
		if _, err := fmt.Sscan(s, &perSecond); err != nil || perSecond < 0 {
			b.Fatalf("FLOOD_RATE=%q: want frames a second, 0 for as fast as possible", s)
		}
	}
	for _, mode := range []struct {
		name    string
		permits bool
		tenant  string
		forged  bool
	}{
		{"insider-open-server", false, "", false},
		{"outsider-open-server", false, "", true},
		{"tenant-permissions", true, "permissions", false},
		{"tenant-account", true, "account", false},
	} {
		b.Run(mode.name, func(b *testing.B) {
			for range b.N {
				r := floodOnce(b, frames, perSecond, mode.permits, mode.tenant, mode.forged)
				b.ReportMetric(r.grownMB, "MB_grown")
				b.ReportMetric(r.rate/r.rate0, "rate_ratio")
				b.ReportMetric(r.rate0, "rounds/s_before")
				b.ReportMetric(r.rate, "rounds/s_flooded")
				b.ReportMetric(float64(r.otherDropouts), "dropouts_other_edges")
				b.ReportMetric(float64(r.floodedDropouts), "dropouts_agent1_edges")
				if r.otherDropouts > 0 {
					b.Errorf("the flood on agent 1's subject cost %d frames on edges without agent 1", r.otherDropouts)
				}
			}
		})
	}
}

// floodResult is what one flooded run measured (see BenchmarkFlood).
type floodResult struct {
	grownMB, rate0, rate float64
	// otherDropouts and floodedDropouts count the dropouts on the edges
	// without agent 1, whose subject is flooded, and on its own edges.
	otherDropouts, floodedDropouts int64
}

// floodOnce runs one flooded run; see BenchmarkFlood.
func floodOnce(b *testing.B, frames, perSecond int, permissions bool, tenant string, forged bool) floodResult {
	var password string
	if permissions {
		pw, err := newPassword()
		if err != nil {
			b.Fatal(err)
		}
		password = pw
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	// With two CPUs or more and taskset present, the server and flooder
	// processes get the last CPU and the agents the others, as if they
	// ran on other hosts; FLOOD_PIN=0 shares every CPU between them.
	command := func() *exec.Cmd {
		return exec.Command(exe, "-test.run=^$")
	}
	pinned := false
	if taskset, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() >= 2 && os.Getenv("FLOOD_PIN") != "0" {
		last := runtime.NumCPU() - 1
		if out, err := exec.Command(taskset, "-a", "-p", "-c", fmt.Sprintf("0-%d", last-1), fmt.Sprint(os.Getpid())).CombinedOutput(); err != nil {
			b.Fatalf("taskset: %v: %s", err, out)
		}
		defer func() {
			_ = exec.Command(taskset, "-a", "-p", "-c", fmt.Sprintf("0-%d", last), fmt.Sprint(os.Getpid())).Run()
		}()
		command = func() *exec.Cmd { return exec.Command(taskset, "-c", fmt.Sprint(last), exe, "-test.run=^$") }
		pinned = true
	}
	// child starts the test binary in role (floodServer or flooder) and
	// returns its input and its output's lines.
	child := func(role string) (io.WriteCloser, *bufio.Scanner) {
		c := command()
		c.Env = append(os.Environ(), floodChildEnv+"="+role, floodUsersEnv+"="+password, floodTenantEnv+"="+tenant)
		if role == "server" && pinned {
			// The server's runtime is sized for the machine, as on a
			// host of its own, not for the one CPU it is pinned to: its
			// read loops are then threads the kernel switches between,
			// and the flooder's busy loop does not hold the agents' for
			// a Go time slice (10 ms) at a time. FLOOD_SERVER_PROCS
			// overrides it.
			procs := strconv.Itoa(runtime.NumCPU())
			if p := os.Getenv("FLOOD_SERVER_PROCS"); p != "" {
				procs = p
			}
			c.Env = append(c.Env, "GOMAXPROCS="+procs)
		}
		c.Stderr = os.Stderr
		stdin, err := c.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := c.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { stdin.Close(); _ = c.Wait() })
		return stdin, bufio.NewScanner(stdout)
	}
	_, serverOut := child("server")
	if !serverOut.Scan() {
		b.Fatal("flood server printed no URL")
	}
	url := serverOut.Text()

	const n, rounds, every = 8, 10_000_000, 100
	key, err := NewRunKey()
	if err != nil {
		b.Fatal(err)
	}
	opts := NATSOptions{RunID: "flood", URL: url, Key: key, Agents: n}
	if permissions {
		opts.User, opts.Password = "agents", password
	}
	tr, err := NewNATSTransport(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := ring(b, n)
	if forged {
		g = ringWithout(b, n, 1)
	}
	agents := nullAgents(b, g, 10)
	deadline := 10 * time.Second
	if s := os.Getenv("FLOOD_DEADLINE"); s != "" {
		if deadline, err = time.ParseDuration(s); err != nil {
			b.Fatalf("FLOOD_DEADLINE=%q: %v", s, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		done <- RunAll(ctx, agents, tr, Options{Rounds: rounds, ReportEvery: every, PhaseDeadline: deadline})
	}()
	if err := StartWhenReady(ctx, obs, n); err != nil {
		b.Fatal(err)
	}
	// progress of agent 0: its latest round and when it came; the
	// terminal statuses of every agent.
	var latest atomic.Int64
	finals := make([]Status, n)
	statusDone := make(chan struct{})
	go func() {
		defer close(statusDone)
		for left := n; left > 0; {
			f, ok := <-obs.Statuses()
			if !ok {
				return
			}
			s, err := DecodeStatus(f)
			if err != nil || s.ID < 0 || s.ID >= n {
				continue
			}
			switch s.Kind {
			case StatusProgress:
				if s.ID == 0 {
					latest.Store(int64(s.Report.Round))
				}
			case StatusFinal, StatusFailed:
				finals[s.ID] = s
				left--
			}
		}
	}()
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	window := func(d time.Duration) float64 {
		r0, t0 := latest.Load(), time.Now()
		time.Sleep(d)
		return float64(latest.Load()-r0) / time.Since(t0).Seconds()
	}
	time.Sleep(time.Second) // warm up
	rate0 := window(2 * time.Second)
	runtime.GC()
	base := heap()
	var peak atomic.Uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h := heap(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	r0, t0 := latest.Load(), time.Now()
	floodIn, lines := child("flooder")
	floodKey, round := key, rounds-1 // an insider: far-future frames under the run key
	if forged {
		// An outsider: frames of round 0 under another key, each of which
		// the agents' process must check.
		if floodKey, err = NewRunKey(); err != nil {
			b.Fatal(err)
		}
		round = 0
	}
	fmt.Fprintf(floodIn, "flood %s flood %x %d %d %d\n", url, floodKey, frames, round, perSecond)
	if !lines.Scan() || lines.Text() != "done" {
		b.Fatalf("flooder: %q", lines.Text())
	}
	time.Sleep(500 * time.Millisecond) // frames still queued for the agents
	rate := float64(latest.Load()-r0) / time.Since(t0).Seconds()
	flood := time.Since(t0)
	close(stopSampling)
	<-sampled
	if err := obs.Control(EncodeControl(Control{Kind: ControlStop})); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	<-statusDone
	obs.Close()
	res := floodResult{rate0: rate0, rate: rate}
	if p := peak.Load(); p > base {
		res.grownMB = float64(p-base) / (1 << 20)
	}
	var refused int64
	for i, s := range finals {
		if s.Kind != StatusFinal {
			b.Errorf("agent %d ended %q: %s", i, s.Kind, s.Err)
		}
		refused += s.Traffic.Refused
		for j, k := range s.Traffic.DropoutsByPeer {
			if i == 1 || j == 1 {
				res.floodedDropouts += k
			} else {
				res.otherDropouts += k
			}
		}
	}
	var dropped int
	for _, s := range tr.bus.senders {
		if d, _ := s.Dropped(); d > 0 {
			dropped += d
			b.Logf("%d messages dropped by the client from %s", d, s.Subject)
		}
	}
	tr0 := finals[0].Traffic
	b.Logf("CPUs pinned (agents | server and flooder): %v", pinned)
	b.Logf("%d frames in %v: %.0f rounds/s before, %.0f during (ratio %.2f); heap %.1f MB before, +%.1f MB at the peak; agent 0 dropped %d ahead, %d at a full queue, %d by a full subscription; %d refused by MAC, %d dropped by the client; dropouts %d on agent 1's edges, %d on the others",
		frames, flood.Round(time.Millisecond), rate0, rate, rate/rate0, float64(base)/(1<<20), res.grownMB, tr0.Ahead, tr0.InboxOverflow, tr0.SlowConsumer,
		refused, dropped, res.floodedDropouts, res.otherDropouts)
	return res
}

// TestFloodOnOneSubjectCostsNoOtherFrame floods agent 1's subject of a
// live run of 8 agents in one process, joined to a server by URL, with
// frames under another key (an outsider on an open server). Each costs
// the agents' process a MAC check, so the flood outruns it and overflows
// the subscription it arrives on: the NATS client drops frames as a slow
// consumer. That subscription is agent 1's alone (NATSOptions.Agents), so
// no other agent's frame is lost: agent 1 has no edges (its frames, in
// the flooded buffer, could be lost; see docs/protocol.md, Floods), the
// other 7 form a ring, and the run has no dropout. A lost frame would cost
// its receiver the phase deadline, a minute, and fail the test.
func TestFloodOnOneSubjectCostsNoOtherFrame(t *testing.T) {
	frames := 300_000
	if os.Getenv("CONSIM_LONG") == "1" {
		frames = 3_000_000
	}
	const n, d = 8, 10
	g := ringWithout(t, n, 1)
	key, err := NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	srv := startTestServer(t, NATSServerOptions{Port: -1})
	tr, err := NewNATSTransport(NATSOptions{RunID: "flood1", URL: srv.ClientURL(), Key: key, Agents: n})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	nc := outsider(t, tr)
	agents := nullAgents(t, g, d)
	frame := forgedMAC(mustFrameTo(t, FrameData, 1, []int{0}, 0, 0, make([]float64, d)))
	subject := SubjectAgent(tr.opts.RunID, 1)
	var flooded *nats.Subscription
	var stop func()
	res, _ := runAttacked(t, tr, agents, Options{Rounds: 1 << 30, PhaseDeadline: time.Minute}, func() {
		for _, s := range tr.bus.senders {
			if s.Subject == subject {
				flooded = s
			}
		}
		if flooded == nil {
			t.Fatalf("no subscription of its own for %s", subject)
		}
		stop = func() {
			for range frames {
				if err := nc.Publish(subject, frame); err != nil {
					t.Error(err)
					return
				}
			}
			if err := nc.Flush(); err != nil {
				t.Error(err)
			}
			// Every frame of the flood was handled or dropped: counts,
			// not a clock, say when the run may stop.
			for {
				delivered, _ := flooded.Delivered()
				dropped, _ := flooded.Dropped()
				if delivered+int64(dropped) >= int64(frames) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}, func(obs Observer) {
		stop()
		if err := obs.Control(EncodeControl(Control{Kind: ControlStop, Reason: "flood over"})); err != nil {
			t.Error(err)
		}
	})
	dropped, _ := flooded.Dropped()
	var sum Traffic
	for i, s := range res.terminal {
		if s.Kind != StatusFinal || s.Traffic.Dropouts != 0 {
			t.Errorf("agent %d: %s after round %d with %d dropouts %v; want no dropout", i, s.Kind, s.Report.Round, s.Traffic.Dropouts, s.Traffic.DropoutsByPeer)
		}
		sum.Refused += s.Traffic.Refused
		sum.SlowConsumer += s.Traffic.SlowConsumer
		if i != 1 && s.Report.Round < 1 {
			t.Errorf("agent %d ran no round during the flood", i)
		}
	}
	t.Logf("%d frames under another key on %s: %d refused by MAC, %d dropped by the client from that subscription (counted %d); agent 0 at round %d, no dropout",
		frames, subject, sum.Refused, dropped, sum.SlowConsumer, res.terminal[0].Report.Round)
	if dropped == 0 {
		t.Errorf("the flood overflowed nothing: the test shows nothing; flood harder")
	}
	// Every frame of the flood is accounted for, once.
	if sum.SlowConsumer != int64(dropped) || sum.Refused+sum.SlowConsumer != int64(frames) {
		t.Errorf("%d refused + %d counted dropped (%d dropped), want the %d frames of the flood", sum.Refused, sum.SlowConsumer, dropped, frames)
	}
}

// ringWithout returns the graph on n agents whose edges are the cycle of
// every agent but out, which has none.
func ringWithout(t testing.TB, n, out int) *graph.Graph {
	t.Helper()
	var ids []int
	for i := range n {
		if i != out {
			ids = append(ids, i)
		}
	}
	var edges []graph.Edge
	for k, i := range ids {
		j := ids[(k+1)%len(ids)]
		edges = append(edges, graph.Edge{I: min(i, j), J: max(i, j), P: 1})
	}
	g, err := graph.New(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
