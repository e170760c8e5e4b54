// Command drills runs each attack and fault of consim's security model
// (docs/protocol.md) against a live run and prints a table: attack, what
// happened, whether the result was affected, the run's status and the
// exit code of the consim process. It exits nonzero if any row fails.
//
// Every run is a `consim` process (the binary given by -consim) on a NATS
// server this program starts on loopback; the attacker is this program's
// own NATS client, without the run key unless the row says it is an
// insider. An attack leaves the result unaffected when the final iterates
// (final.json) are bit-identical to those of an unattacked run of the
// same scenario and seed; a row passes when the result is unaffected and
// the attack is counted or refused, with status ok and exit code 0 (for
// the junk flood, which competes for the agents' CPU, also when the result
// changed and the summary counts the dropouts or late frames that changed
// it), or,
// for a fault that ends the run (a killed agent, a lost coordinator), when
// the fault is named with the documented status and exit code. The
// network rows (netfaults.go) fault the TCP path of an agent process in a
// network namespace of its own; they need root and are skipped otherwise.
//
// Run it with `make faults`, or:
//
//	go build -o bin/consim ./cmd/consim && go run ./drills -consim bin/consim
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
)

func main() {
	consim := flag.String("consim", "bin/consim", "the consim `binary` the runs use")
	scenario := flag.String("scenario", "scenarios/quickstart.yaml", "the scenario `file` every run uses")
	only := flag.String("only", "", "run only the rows whose attack contains this `text`")
	flag.Parse()
	os.Exit(run(*consim, *scenario, *only, os.Stdout, os.Stderr))
}

// run runs the drills and returns the exit code: 0 if every row passed.
func run(consim, scenario, only string, stdout, stderr io.Writer) int {
	exe, err := filepath.Abs(consim)
	if err != nil {
		fmt.Fprintf(stderr, "drills: %v\n", err)
		return 2
	}
	if _, err := os.Stat(exe); err != nil {
		fmt.Fprintf(stderr, "drills: consim binary: %v (build it: go build -o bin/consim ./cmd/consim)\n", err)
		return 2
	}
	dir, err := os.MkdirTemp("", "consim-drills-")
	if err != nil {
		fmt.Fprintf(stderr, "drills: %v\n", err)
		return 2
	}
	defer os.RemoveAll(dir)
	d := &drill{exe: exe, scenario: scenario, dir: dir, log: stderr}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	fmt.Fprintln(stderr, "drills: unattacked reference run")
	ref, err := d.reference(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "drills: reference run: %v\n", err)
		return 1
	}
	d.ref = ref
	var rows []row
	for _, a := range attacks() {
		if only != "" && !strings.Contains(a.name, only) {
			continue
		}
		fmt.Fprintf(stderr, "drills: %s\n", a.name)
		r := a.run(ctx, d)
		r.attack = a.name
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "attack\twhat happened\tresult affected?\tstatus\texit code\trow")
	failed, skips := 0, 0
	for _, r := range rows {
		verdict := "pass"
		switch {
		case r.err != nil:
			verdict = "FAIL: " + r.err.Error()
			failed++
		case r.skip:
			verdict = "skipped"
			skips++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.attack, r.happened, r.affected, r.status, r.exit, verdict)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d of %d rows passed", len(rows)-failed-skips, len(rows)-skips)
	if skips > 0 {
		fmt.Fprintf(stdout, " (%d skipped)", skips)
	}
	fmt.Fprintln(stdout)
	if failed > 0 {
		return 1
	}
	return 0
}

// row is one line of the table; err is why it failed, nil if it passed.
type row struct {
	attack, happened, affected, status, exit string
	err                                      error
	// skip: the machine cannot run the row (happened says why); it
	// neither passes nor fails.
	skip bool
}

// attack is one row's drill.
type attack struct {
	name string
	run  func(ctx context.Context, d *drill) row
}

// drill holds what every row shares.
type drill struct {
	exe, scenario, dir string
	log                io.Writer
	ref                *coordinator.FinalIterates
	seq                atomic.Int64
}

// The runs: 4 agents of the scenario on a NATS server of the drill, long
// enough (20,000 rounds) to be attacked while live.
const (
	runAgents = 4
	runRounds = 20000
)

func (d *drill) sets(url string) []string {
	return append(d.runSets(), "runtime.nats_url="+url)
}

// runSets are the sets of a run whose processes are given the server's
// URL on their command lines (consim coordinator, consim node).
func (d *drill) runSets() []string {
	return []string{"agents=" + strconv.Itoa(runAgents), "rounds=" + strconv.Itoa(runRounds), "metrics.every=500",
		"runtime.transport=nats-tcp"}
}

// server starts a NATS server on loopback with users (none: anyone may
// connect and publish, as on a shared external server).
func (d *drill) server(users []node.NATSUser) (*server.Server, error) {
	return node.StartNATSServer(node.NATSServerOptions{Name: "drills", Host: "127.0.0.1", Port: server.RANDOM_PORT, Users: users})
}

// newRun returns a fresh run id and the results root of its run.
func (d *drill) newRun() (id, out string) {
	n := d.seq.Add(1)
	return fmt.Sprintf("drill-%d", n), filepath.Join(d.dir, fmt.Sprintf("out-%d", n))
}

// liveRun is a `consim run` process.
type liveRun struct {
	id, out string
	key     []byte
	cmd     *exec.Cmd
	stderr  bytes.Buffer
	done    chan struct{}
	code    int
}

// start starts `consim run` of the scenario as run id over url, with a
// fresh run key in its environment and the extra environment env.
func (d *drill) start(url string, env []string, extra ...string) (*liveRun, error) {
	key := make([]byte, node.RunKeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	id, out := d.newRun()
	r := &liveRun{id: id, out: out, key: key, done: make(chan struct{})}
	args := []string{"run", d.scenario, "--run-id", r.id, "--out", r.out, "--log-level", "error"}
	for _, s := range append(d.sets(url), extra...) {
		args = append(args, "--set", s)
	}
	r.cmd = exec.Command(d.exe, args...)
	r.cmd.Env = append(append(os.Environ(), node.EnvRunKey+"="+hex.EncodeToString(key)), env...)
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start consim run: %w", err)
	}
	go func() {
		_ = r.cmd.Wait()
		r.code = r.cmd.ProcessState.ExitCode()
		close(r.done)
	}()
	return r, nil
}

// bundle returns the run's bundle directory.
func (r *liveRun) bundle() string { return filepath.Join(r.out, r.id) }

// waitLive waits until the run has measured two rows (it is past its
// start and running), or fails if it ended first.
func (r *liveRun) waitLive(ctx context.Context) error {
	path := filepath.Join(r.bundle(), coordinator.MetricsJSONFile)
	for {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte("\n")) >= 2 {
			return nil
		}
		select {
		case <-r.done:
			return fmt.Errorf("run %s ended (exit %d) before it was live: %s", r.id, r.code, lastLine(r.stderr.String()))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// wait waits for the run to end and reads its summary and final iterates.
func (r *liveRun) wait(ctx context.Context) (*coordinator.Summary, *coordinator.FinalIterates, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		_ = r.cmd.Process.Kill()
		<-r.done
		return nil, nil, ctx.Err()
	}
	var sum coordinator.Summary
	if err := readJSON(filepath.Join(r.bundle(), coordinator.SummaryFile), &sum); err != nil {
		return nil, nil, fmt.Errorf("%w (exit %d: %s)", err, r.code, lastLine(r.stderr.String()))
	}
	var fin coordinator.FinalIterates
	if err := readJSON(filepath.Join(r.bundle(), coordinator.FinalFile), &fin); err != nil {
		return &sum, nil, err
	}
	return &sum, &fin, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// reference runs the scenario unattacked.
func (d *drill) reference(ctx context.Context) (*coordinator.FinalIterates, error) {
	srv, err := d.server(nil)
	if err != nil {
		return nil, err
	}
	defer stopServer(srv)
	r, err := d.start(srv.ClientURL(), nil)
	if err != nil {
		return nil, err
	}
	sum, fin, err := r.wait(ctx)
	if err != nil {
		return nil, err
	}
	if r.code != 0 || sum.Status != coordinator.StatusOK || sum.Rounds != runRounds {
		return nil, fmt.Errorf("status %s after %d rounds, exit %d", sum.Status, sum.Rounds, r.code)
	}
	return fin, nil
}

func stopServer(srv *server.Server) {
	srv.Shutdown()
	srv.WaitForShutdown()
}

// unaffected reports whether fin holds the reference's final iterates,
// bit for bit.
func (d *drill) unaffected(fin *coordinator.FinalIterates) error { return sameIterates(d.ref, fin) }

// sameIterates reports whether fin holds ref's final iterates, bit for
// bit.
func sameIterates(ref, fin *coordinator.FinalIterates) error {
	if fin == nil {
		return errors.New("no final iterates")
	}
	if len(fin.Agents) != len(ref.Agents) {
		return fmt.Errorf("%d agents in final.json, reference %d", len(fin.Agents), len(ref.Agents))
	}
	for i, w := range ref.Agents {
		g := fin.Agents[i]
		if g.ID != w.ID || g.Round != w.Round || len(g.X) != len(w.X) {
			return fmt.Errorf("agent %d: round %d with %d values, reference round %d with %d", g.ID, g.Round, len(g.X), w.Round, len(w.X))
		}
		for k := range w.X {
			if math.Float64bits(g.X[k]) != math.Float64bits(w.X[k]) {
				return fmt.Errorf("agent %d x[%d] = %v, reference %v", g.ID, k, g.X[k], w.X[k])
			}
		}
	}
	return nil
}

// seal returns frame followed by its MAC under key for run in the subject
// family class, as docs/protocol.md defines it: HMAC-SHA256(K, "consim"
// || 0x01 || class || run || 0x00 || frame). Only an insider who holds
// the run key can do this.
func seal(key []byte, class byte, run string, frame []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("consim"))
	h.Write([]byte{node.FrameVersion, class})
	h.Write([]byte(run))
	h.Write([]byte{0})
	h.Write(frame)
	return h.Sum(append([]byte(nil), frame...))
}

// junkMAC returns frame followed by 32 random bytes: a forgery.
func junkMAC(frame []byte) []byte {
	tag := make([]byte, sha256.Size)
	_, _ = rand.Read(tag)
	return append(append([]byte(nil), frame...), tag...)
}

// connect connects the attacker to url; errs collects the server's
// asynchronous errors (permission violations).
func connect(url string, errs *errList, opts ...nats.Option) (*nats.Conn, error) {
	opts = append(opts, nats.Name("attacker"), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs.add(err) }))
	return nats.Connect(url, opts...)
}

type errList struct {
	mu   sync.Mutex
	errs []error
}

func (e *errList) add(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

func (e *errList) count(substr string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, err := range e.errs {
		if strings.Contains(strings.ToLower(err.Error()), substr) {
			n++
		}
	}
	return n
}

// publishAsOutsider connects to url as an outsider, publishes n messages made by mk
// on subject, flushes and disconnects.
func publishAsOutsider(url, subject string, n int, mk func(k int) []byte) error {
	var errs errList
	nc, err := connect(url, &errs)
	if err != nil {
		return err
	}
	defer nc.Close()
	return publishN(nc, subject, n, mk)
}

// publishN publishes n messages made by mk on subject and flushes.
func publishN(nc *nats.Conn, subject string, n int, mk func(k int) []byte) error {
	for k := range n {
		if err := nc.Publish(subject, mk(k)); err != nil {
			return fmt.Errorf("publish %s: %w", subject, err)
		}
	}
	return nc.FlushTimeout(10 * time.Second)
}

// dataFrame returns a well-formed data frame of agent from for round t.
func dataFrame(from, t int) []byte {
	f, _ := node.AppendFrameTo(nil, node.FrameData, from, []int{(from + 1) % runAgents}, t, 0, []float64{1e6, -1e6})
	return f
}

// attacked runs the scenario on a server with users (nil: none), calls
// hit once it is live, and checks the outcome: bit-identical result,
// status ok, exit 0, and what check says of the summary.
func (d *drill) attacked(ctx context.Context, users []node.NATSUser, env []string,
	hit func(url string, r *liveRun) (string, error), check func(s *coordinator.Summary) error) row {
	return d.attackedRun(ctx, users, env, hit, check, false)
}

// attackedCounted is attacked for an attack that may cost the run time
// (a flood competes for the agents' CPU): the result may also differ from
// the reference if the summary counts what changed it, dropouts or late
// frames, as the runtime's deadlines promise. A changed result with
// nothing counted still fails.
func (d *drill) attackedCounted(ctx context.Context, users []node.NATSUser, env []string,
	hit func(url string, r *liveRun) (string, error), check func(s *coordinator.Summary) error) row {
	return d.attackedRun(ctx, users, env, hit, check, true)
}

func (d *drill) attackedRun(ctx context.Context, users []node.NATSUser, env []string,
	hit func(url string, r *liveRun) (string, error), check func(s *coordinator.Summary) error, counted bool) row {
	srv, err := d.server(users)
	if err != nil {
		return row{err: err}
	}
	defer stopServer(srv)
	url := srv.ClientURL()
	r, err := d.start(url, env)
	if err != nil {
		return row{err: err}
	}
	var happened string
	var hitErr error
	if err := r.waitLive(ctx); err != nil {
		hitErr = err
	} else {
		happened, hitErr = hit(url, r)
	}
	sum, fin, err := r.wait(ctx)
	out := row{happened: happened, exit: strconv.Itoa(r.code)}
	if sum != nil {
		out.status = sum.Status + "/" + sum.StopCause
	}
	switch {
	case hitErr != nil:
		out.err = hitErr
		return out
	case err != nil:
		out.err = err
		return out
	}
	if uerr := d.unaffected(fin); uerr != nil {
		out.affected = "yes: " + uerr.Error()
		if sum != nil {
			t := sum.Traffic
			out.affected += fmt.Sprintf(" (counted: %d dropouts, %d late)", t.Dropouts, t.Late)
		}
		if !counted || sum == nil || sum.Traffic.Dropouts+sum.Traffic.Late == 0 {
			out.err = errors.New("result affected")
			return out
		}
	} else {
		out.affected = "no (bit-identical)"
	}
	if r.code != 0 || sum.Status != coordinator.StatusOK || sum.Rounds != runRounds {
		out.err = fmt.Errorf("want status ok after %d rounds and exit 0", runRounds)
		return out
	}
	if cerr := check(sum); cerr != nil {
		out.err = cerr
	}
	return out
}

// noCheck accepts any summary.
func noCheck(*coordinator.Summary) error { return nil }

func attacks() []attack {
	return append([]attack{
		{"forged data frames (bad MAC)", forgedData},
		{"replayed frames", replayed},
		{"far-future frames (insider with the key)", farFuture},
		{"forged stop control (bad MAC)", forgedStop},
		{"publish on another agent's subject (no permission)", noPermission},
		{"flood of junk frames", junkFlood},
		{"second run claiming the same id", secondClaim},
		{"kill -9 of an agent (launch)", killAgent},
		{"coordinator gone (kill -9)", coordinatorGone},
		{"coordinator killed and resumed (JetStream)", coordinatorResumed},
	}, netRows()...)
}

// refusedOn checks that the summary counts at least n refused messages on
// subject.
func refusedOn(subject string, n int64) func(s *coordinator.Summary) error {
	return func(s *coordinator.Summary) error {
		if got := s.Traffic.RefusedBySubject[subject]; got < n {
			return fmt.Errorf("%d refused on %s, want %d", got, subject, n)
		}
		return nil
	}
}

func forgedData(ctx context.Context, d *drill) row {
	const n = 1000
	var subject string
	return d.attacked(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		subject = node.SubjectAgent(r.id, 1)
		// Rounds 0..n-1: those within the receivers' future window reach
		// the MAC check and are refused; those beyond it are dropped on
		// their header and counted ahead. Either way none is accepted.
		err := publishAsOutsider(url, subject, n, func(k int) []byte { return junkMAC(dataFrame(1, k)) })
		return fmt.Sprintf("%d data frames x=±1e6 from agent 1 for rounds 0..%d, random MAC", n, n-1), err
	}, func(s *coordinator.Summary) error {
		// A flood faster than the MAC checks overflows the subscription
		// of agent 1's subject: the client's drops are counted too.
		if got := s.Traffic.RefusedBySubject[subject] + s.Traffic.Ahead + s.Traffic.SlowConsumer; got < n {
			return fmt.Errorf("%d refused on %s, %d dropped ahead and %d by a full subscription, want %d in all",
				s.Traffic.RefusedBySubject[subject], subject, s.Traffic.Ahead, s.Traffic.SlowConsumer, n)
		}
		return nil
	})
}

func replayed(ctx context.Context, d *drill) row {
	const n = 300
	return d.attacked(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		var errs errList
		nc, err := connect(url, &errs)
		if err != nil {
			return "", err
		}
		defer nc.Close()
		subject := node.SubjectAgent(r.id, 0)
		got := make(chan []byte, n)
		sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
			select {
			case got <- append([]byte(nil), m.Data...):
			default:
			}
		})
		if err != nil {
			return "", err
		}
		var captured [][]byte
		timeout := time.After(10 * time.Second)
		for len(captured) < n {
			select {
			case m := <-got:
				captured = append(captured, m)
			case <-timeout:
				return "", fmt.Errorf("captured %d of %d frames of agent 0", len(captured), n)
			}
		}
		_ = sub.Unsubscribe()
		time.Sleep(100 * time.Millisecond) // the run moves past them
		err = publishN(nc, subject, n, func(k int) []byte { return captured[k] })
		return fmt.Sprintf("%d authentic frames of agent 0 captured and published again", n), err
	}, func(s *coordinator.Summary) error {
		// Each replay reaches at least one agent, which drops it as late
		// (its phase is over) or unexpected (it has that frame).
		if got := s.Traffic.Late + s.Traffic.Unexpected; got < n {
			return fmt.Errorf("%d late or unexpected frames, want at least the %d replayed", got, n)
		}
		return nil
	})
}

func farFuture(ctx context.Context, d *drill) row {
	const n = 20000
	return d.attacked(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		subject := node.SubjectAgent(r.id, 1)
		err := publishAsOutsider(url, subject, n, func(k int) []byte {
			return seal(r.key, 'a', r.id, dataFrame(1, runRounds-1-k%1000))
		})
		return fmt.Sprintf("%d authenticated frames of agent 1 for rounds %d..%d", n, runRounds-1000, runRounds-1), err
	}, func(s *coordinator.Summary) error {
		// Dropped on arrival beyond the window (ahead), or, once the run
		// is near its end, kept and then never expected (unexpected); a
		// burst beyond agent 1's subscription is dropped by the client.
		if got := s.Traffic.Ahead + s.Traffic.Unexpected + s.Traffic.Overflow + s.Traffic.SlowConsumer; got < n {
			return fmt.Errorf("%d frames counted ahead, unexpected, overflow or dropped by a full subscription, want at least %d", got, n)
		}
		return nil
	})
}

func forgedStop(ctx context.Context, d *drill) row {
	const n = 20
	var subject string
	return d.attacked(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		subject = node.SubjectControl(r.id)
		err := publishAsOutsider(url, subject, n, func(int) []byte {
			return junkMAC(node.EncodeControl(node.Control{Kind: node.ControlStop, Reason: "forged"}))
		})
		return fmt.Sprintf(`%d {"kind":"stop"} controls, random MAC`, n), err
	}, func(s *coordinator.Summary) error {
		if s.StopCause != coordinator.StopRounds {
			return fmt.Errorf("stop cause %s, want rounds", s.StopCause)
		}
		return refusedOn(subject, n)(s)
	})
}

func noPermission(ctx context.Context, d *drill) row {
	const n = 100
	// The run's process gets a user that may do anything on its own
	// run; the attacker is agent 3's user, which may publish on a.3 only,
	// and holds the run key too (an insider).
	run := fmt.Sprintf("drill-%d", d.seq.Load()+1)
	all := node.NATSUser{Name: "run", Password: hex.EncodeToString(randBytes(16)),
		Subscribe: []string{"consim." + run + ".>", "_INBOX.>"}}
	attacker, err := node.AgentUser(run, 3)
	if err != nil {
		return row{err: err}
	}
	pwFile := filepath.Join(d.dir, "run.password")
	_ = os.Remove(pwFile)
	if err := node.WriteNATSPasswordFile(pwFile, all.Password); err != nil {
		return row{err: err}
	}
	env := []string{node.EnvNATSUser + "=run", node.EnvNATSPasswordFile + "=" + pwFile}
	var errs errList
	return d.attacked(ctx, []node.NATSUser{all, attacker}, env, func(url string, r *liveRun) (string, error) {
		if r.id != run {
			return "", fmt.Errorf("run id %s, want %s", r.id, run)
		}
		nc, err := connect(url, &errs, nats.UserInfo(attacker.Name, attacker.Password))
		if err != nil {
			return "", err
		}
		defer nc.Close()
		err = publishN(nc, node.SubjectAgent(r.id, 1), n, func(k int) []byte { return seal(r.key, 'a', r.id, dataFrame(1, 1000+k)) })
		time.Sleep(200 * time.Millisecond) // the server's violation notices
		return fmt.Sprintf("agent-3 published %d authenticated frames on a.1; the server refused: %d permission violations", n, errs.count("permissions violation")), err
	}, func(*coordinator.Summary) error {
		if errs.count("permissions violation") == 0 {
			return errors.New("the server reported no permission violation")
		}
		return nil
	})
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func junkFlood(ctx context.Context, d *drill) row {
	const n = 100000
	var subject string
	return d.attackedCounted(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		subject = node.SubjectAgent(r.id, 2)
		err := publishAsOutsider(url, subject, n, func(int) []byte { return randBytes(64) })
		return fmt.Sprintf("%d messages of 64 random bytes on a.2", n), err
	}, func(s *coordinator.Summary) error {
		// Refused, or dropped by a2's own full subscription: counted
		// either way, and no other agent's frame is lost.
		if got := s.Traffic.RefusedBySubject[subject] + s.Traffic.SlowConsumer; got < n {
			return fmt.Errorf("%d refused on %s and %d dropped by a full subscription, want %d in all", s.Traffic.RefusedBySubject[subject], subject, s.Traffic.SlowConsumer, n)
		}
		return nil
	})
}

func secondClaim(ctx context.Context, d *drill) row {
	var second *liveRun
	out := d.attacked(ctx, nil, nil, func(url string, r *liveRun) (string, error) {
		// Same run id on the same server, another seed and bundle root.
		_, root := d.newRun()
		second = &liveRun{id: r.id, out: root, done: make(chan struct{})}
		args := []string{"run", d.scenario, "--run-id", r.id, "--out", second.out, "--log-level", "error", "--set", "seed=99"}
		for _, s := range d.sets(url) {
			args = append(args, "--set", s)
		}
		second.cmd = exec.CommandContext(ctx, d.exe, args...)
		second.cmd.Env = append(os.Environ(), node.EnvRunKey+"="+hex.EncodeToString(randBytes(32)))
		second.cmd.Stderr = &second.stderr
		err := second.cmd.Run()
		second.code = second.cmd.ProcessState.ExitCode()
		msg := lastLine(second.stderr.String())
		if err == nil || !strings.Contains(msg, "already in use") {
			return msg, fmt.Errorf("the second run exited %d: %q; want refused with \"already in use\"", second.code, msg)
		}
		return fmt.Sprintf("second run refused, exit %d: %.90s", second.code, msg[strings.Index(msg, "run id"):]), nil
	}, noCheck)
	if second != nil {
		out.exit += fmt.Sprintf(" (second: %d)", second.code)
	}
	return out
}

// killAgent runs `consim launch` with 8 agents and kills agent 5's
// process: it must be named lost with its pid, status failed, cause
// agent_lost, exit 1.
func killAgent(ctx context.Context, d *drill) row {
	const victim = 5
	id, out := d.newRun()
	args := []string{"launch", d.scenario, "--run-id", id, "--out", out, "--log-level", "error",
		"--set", "agents=8", "--set", "rounds=1000000", "--set", "metrics.every=10",
		"--set", "runtime.agent_timeout=3s", "--set", "runtime.phase_deadline=500ms"}
	cmd := exec.Command(d.exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return row{err: err}
	}
	r := &liveRun{id: id, out: out, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); r.code = cmd.ProcessState.ExitCode(); close(r.done) }()
	res := row{}
	if err := r.waitLive(ctx); err != nil {
		res.err = err
		return res
	}
	pid := agentPID(cmd.Process.Pid, victim)
	if pid == 0 {
		_ = cmd.Process.Kill()
		<-r.done
		res.err = fmt.Errorf("no process of agent %d among the launcher's children", victim)
		return res
	}
	killed := time.Now()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	<-r.done
	took := time.Since(killed)
	res.exit = strconv.Itoa(r.code)
	var sum coordinator.Summary
	if err := readJSON(filepath.Join(r.bundle(), coordinator.SummaryFile), &sum); err != nil {
		res.err = err
		return res
	}
	res.status = sum.Status + "/" + sum.StopCause
	res.affected = "yes: run ended (policy fail)"
	want := fmt.Sprintf("agent %d (pid %d) lost at round", victim, pid)
	if len(sum.Faults) > 0 {
		res.happened = fmt.Sprintf("%s; launch ended %.2fs after the kill", sum.Faults[0].Message, took.Seconds())
	}
	if len(sum.Faults) != 1 || !strings.Contains(sum.Faults[0].Message, want) || sum.Status != coordinator.StatusFailed ||
		sum.StopCause != coordinator.StopLost || r.code != 1 || took > 3*time.Second {
		res.err = fmt.Errorf("want one fault naming %q, status failed/agent_lost, exit 1, within the 3 s deadline; faults %+v", want, sum.Faults)
	}
	return res
}

// agentPID returns the pid of the child of parent running `node ... --id
// id`, 0 if none.
func agentPID(parent, id int) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", parent))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			args := strings.Split(string(cl), "\x00")
			for k := 0; k+1 < len(args); k++ {
				if args[k] == "--id" && args[k+1] == strconv.Itoa(id) {
					return pid
				}
			}
		}
	}
	return 0
}

// coordinatorGone runs a coordinator process and 4 agent processes on a
// server of the drill, kills the coordinator with SIGKILL once the run
// is live, and checks that every agent exits with code 1 naming the lost
// coordinator within the deadline (runtime.agent_timeout = 2 s).
func coordinatorGone(ctx context.Context, d *drill) row {
	srv, err := d.server(nil)
	if err != nil {
		return row{err: err}
	}
	defer stopServer(srv)
	url := srv.ClientURL()
	id, out := d.newRun()
	sets := []string{"--set", "agents=4", "--set", "rounds=1000000", "--set", "metrics.every=10",
		"--set", "runtime.agent_timeout=2s", "--set", "runtime.phase_deadline=500ms"}
	env := append(os.Environ(), node.EnvRunKey+"="+hex.EncodeToString(randBytes(32)))
	coord := exec.Command(d.exe, append([]string{"coordinator", d.scenario, "--nats", url, "--run-id", id, "--out", out, "--log-level", "error"}, sets...)...)
	coord.Env = env
	if err := coord.Start(); err != nil {
		return row{err: err}
	}
	cr := &liveRun{id: id, out: out, cmd: coord, done: make(chan struct{})}
	go func() { _ = coord.Wait(); close(cr.done) }()
	type agentProc struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
		done   chan struct{}
		at     time.Time
	}
	agents := make([]*agentProc, 4)
	for i := range agents {
		a := &agentProc{done: make(chan struct{})}
		a.cmd = exec.Command(d.exe, append([]string{"node", d.scenario, "--nats", url, "--run-id", id, "--id", strconv.Itoa(i), "--log-level", "error"}, sets...)...)
		a.cmd.Env = env
		a.cmd.Stderr = &a.stderr
		if err := a.cmd.Start(); err != nil {
			return row{err: err}
		}
		go func() { _ = a.cmd.Wait(); a.at = time.Now(); close(a.done) }()
		agents[i] = a
	}
	defer func() {
		for _, a := range agents {
			_ = a.cmd.Process.Kill()
			<-a.done
		}
	}()
	res := row{status: "(no coordinator)", affected: "yes: run ended"}
	if err := cr.waitLive(ctx); err != nil {
		_ = coord.Process.Kill()
		res.err = err
		return res
	}
	killed := time.Now()
	_ = coord.Process.Kill()
	<-cr.done
	var codes []string
	var worst time.Duration
	for i, a := range agents {
		select {
		case <-a.done:
		case <-time.After(15 * time.Second):
			res.err = fmt.Errorf("agent %d still running 15 s after the coordinator was killed", i)
			return res
		}
		worst = max(worst, a.at.Sub(killed))
		code := a.cmd.ProcessState.ExitCode()
		codes = append(codes, strconv.Itoa(code))
		if code != 1 || !strings.Contains(a.stderr.String(), "coordinator lost") {
			res.err = fmt.Errorf("agent %d exited %d: %s; want 1 naming the lost coordinator", i, code, lastLine(a.stderr.String()))
		}
	}
	res.exit = "agents: " + strings.Join(codes, ",")
	res.happened = fmt.Sprintf("every agent failed with \"coordinator lost\" within %.2fs of the kill (deadline 2 s)", worst.Seconds())
	if res.err == nil && worst > 2*time.Second+2*time.Second {
		res.err = fmt.Errorf("agents took %v to give up, deadline 2 s", worst)
	}
	return res
}
