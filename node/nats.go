package node

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// NATS subjects of a run (run is NATSOptions.RunID):
//
//	consim.<run>.a.<id>   every frame agent id sends to agents (data,
//	                      reduce terms and sums, leaves): one publish per
//	                      frame, addressed by the frame's destination list
//	consim.<run>.r.<w>    eval results and failures of oracle worker w,
//	                      for the agent the frame names
//	consim.<run>.eval     eval requests to the oracle workers, who
//	                      subscribe in the queue group EvalQueue
//	consim.<run>.s.<id>   statuses of agent id to the coordinator
//	consim.<run>.ctl      controls of the coordinator to every agent
//	consim.<run>.claim    the coordinator's claim on the run id (see
//	                      NATSTransport.Observer)
//
// Each process has one connection for all its agents (see Endpoint),
// subscribed to the agents' frames (one subscription per sender on a
// server given by URL, see NATSOptions.Agents), to consim.<run>.r.> and
// to consim.<run>.ctl: the server sends every frame once to each process,
// which hands it to the local agents its header names. Every
// message ends with a MAC under the run key (see mac.go); messages whose
// MAC fails are dropped and counted by subject, and a frame on
// consim.<run>.a.<id> must name id as its sender.
//
// NATS keeps the order of one publisher's messages on one subject; the
// round loop relies on nothing more: every frame names its (round,
// phase), and a leave names the first phase its sender skips.

// SubjectAgent returns the subject agent id publishes its frames on.
func SubjectAgent(run string, id int) string { return "consim." + run + ".a." + strconv.Itoa(id) }

// SubjectAgentTo returns the subject agent from publishes frames for
// agent to on, in the per-destination layout (NATSOptions.PerDestination).
func SubjectAgentTo(run string, from, to int) string {
	return "consim." + run + ".a." + strconv.Itoa(from) + "." + strconv.Itoa(to)
}

// SubjectAgentAll returns the subject agent from publishes frames for every
// agent on, in the per-destination layout.
func SubjectAgentAll(run string, from int) string {
	return "consim." + run + ".a." + strconv.Itoa(from) + ".all"
}

// SubjectAgents returns the wildcard of every agent's frames in run.
func SubjectAgents(run string) string { return "consim." + run + ".a.>" }

// SubjectResult returns the subject oracle worker w publishes results on.
func SubjectResult(run string, w int) string { return "consim." + run + ".r." + strconv.Itoa(w) }

// SubjectResults returns the wildcard of every worker's results in run.
func SubjectResults(run string) string { return "consim." + run + ".r.>" }

// SubjectStatus returns the subject agent id publishes its statuses on.
func SubjectStatus(run string, id int) string { return "consim." + run + ".s." + strconv.Itoa(id) }

// SubjectStatuses returns the wildcard of every agent's statuses in run.
func SubjectStatuses(run string) string { return "consim." + run + ".s.>" }

// SubjectControl returns the control subject of run.
func SubjectControl(run string) string { return "consim." + run + ".ctl" }

// SubjectEval returns the subject of run's evaluation requests.
func SubjectEval(run string) string { return "consim." + run + ".eval" }

// SubjectClaim returns the subject of run's claim (see Observer).
func SubjectClaim(run string) string { return "consim." + run + ".claim" }

// EvalQueue is the NATS queue group of the oracle workers on SubjectEval.
const EvalQueue = "oracle-workers"

// Limits of the embedded server and of each subscription.
const (
	natsMaxPayload   = 8<<20 + 4096 // bytes per message: 1M float64 values, header and MAC
	natsMaxPending   = 256 << 20    // bytes the server queues per client
	natsPendingMsgs  = 1 << 16      // messages a subscription may queue
	natsPendingBytes = 256 << 20    // bytes a subscription may queue
	// natsSenderPendingMsgs bounds the messages a subscription to one
	// sender's subjects may queue (see NATSOptions.Agents): far more
	// than the few frames of a round a sender has in flight, enough for a
	// burst of forged frames, and few enough that a full one costs the
	// process about 12 MB (a small message takes some 700 bytes in the
	// NATS client).
	natsSenderPendingMsgs = 1 << 14
	natsCloseFlushTime    = 2 * time.Second
	// natsTCPPingInterval and natsTCPMaxPings detect a TCP connection
	// whose server stopped reading: after natsTCPMaxPings pings without
	// an answer, one every natsTCPPingInterval, the client closes it as
	// stale, which also ends a write blocked on it, and reconnects. The
	// writes themselves have no deadline: a deadline is two timer
	// updates per flush, paid on every round.
	natsTCPPingInterval = 10 * time.Second
	natsTCPMaxPings     = 3
)

// Defaults of NATSOptions.
const (
	// DefaultNATSConnectTimeout bounds connecting to a NATS server.
	DefaultNATSConnectTimeout = 4 * time.Second
	// DefaultNATSReconnectWait is the pause between reconnect attempts.
	DefaultNATSReconnectWait = 250 * time.Millisecond
	// DefaultNATSReconnectTimeout bounds the time without a server.
	DefaultNATSReconnectTimeout = 30 * time.Second
	// DefaultNATSReconnectBufSize is the publish buffer kept while
	// reconnecting.
	DefaultNATSReconnectBufSize = 16 << 20
)

// NATSOptions configure a NATS transport.
type NATSOptions struct {
	// RunID namespaces the run's subjects; it is one subject token of
	// letters, digits, '-' and '_'. Required.
	RunID string
	// URL of the NATS server (nats://host:port, comma-separated for a
	// cluster). Empty starts an embedded nats-server owned by the
	// transport.
	URL string
	// InProcess, with an empty URL, makes the embedded server listen on
	// no port and connects every client in-process (no TCP). Its messages
	// carry no MAC: no client outside the process can reach the server
	// (see mac.go). Without it the embedded server listens on 127.0.0.1
	// on a random port, see URL().
	InProcess bool
	// Key is the run key that authenticates every message (HMAC-SHA256,
	// see mac.go); every process of a run needs the same one. When empty,
	// it is read from the file named by $CONSIM_RUN_KEY_FILE (hex, see
	// WriteRunKeyFile), else from $CONSIM_RUN_KEY (hex); failing both, a
	// transport that starts its own server makes a random key (no other
	// process can join its run), and one given a URL uses
	// DeriveRunKey(RunID) and logs a warning: frames are then checked
	// for corruption and for crossing runs, but anyone who knows the run
	// id can forge them. Keys reach processes by file or environment,
	// never on the command line. At least MinRunKeyLen bytes.
	Key []byte
	// User and Password authenticate the process's connections to a
	// server given by URL that requires it (see RunUsers). When User is
	// empty they are read from $CONSIM_NATS_USER and the file named by
	// $CONSIM_NATS_PASSWORD_FILE; failing both, connections are
	// anonymous. A transport that starts its own server ignores them: it
	// makes a user per role (agents, workers, coordinator) with the
	// permissions of that role, and accepts no other client.
	User, Password string
	// TLS names the client's TLS files: a CA that verifies the server,
	// and a client certificate and key (see TLSFiles). CredsFile is a
	// NATS credentials file (a user JWT and its nkey seed) and NKeyFile an
	// nkey seed file, for servers that authenticate with them; give one
	// at most. All of them are paths: secrets never travel in options.
	// Left empty, they are read from $CONSIM_NATS_TLS_CA,
	// $CONSIM_NATS_TLS_CERT, $CONSIM_NATS_TLS_KEY, $CONSIM_NATS_CREDS and
	// $CONSIM_NATS_NKEY.
	TLS                 TLSFiles
	CredsFile, NKeyFile string
	// ConnectTimeout bounds each connection attempt; an unreachable
	// server is an error after at most this long. Default 4 s.
	ConnectTimeout time.Duration
	// ReconnectWait is the pause between attempts to reconnect to a
	// server that went away. Default 250 ms.
	ReconnectWait time.Duration
	// ReconnectTimeout bounds how long a connection may stay without a
	// server: after that long it is closed, the endpoint's or observer's
	// channels close (so the round loop or the coordinator ends with an
	// error) and Lost reports why. Default 30 s.
	ReconnectTimeout time.Duration
	// ReconnectBufSize is how many bytes of publishes a connection keeps
	// while it reconnects; they are sent once the server is back.
	// Publishes beyond it fail, and their frames become dropouts at the
	// receivers' deadlines. Default 16 MiB.
	ReconnectBufSize int
	// Logger receives connection events. Default: discard.
	Logger hclog.Logger

	// Agents is N, the number of agents of the run (ids 0..N-1). A
	// process connected to a server given by URL then subscribes to each
	// agent's subjects separately (consim.<run>.a.<j> and its tails, and
	// the observer to each consim.<run>.s.<j>), each subscription with a
	// pending limit of its own (natsSenderPendingMsgs messages, and a
	// share of natsPendingBytes but at least two of the largest
	// messages): a client that floods one agent's subject (anyone on a
	// server without per-agent users, or an agent on its own subject)
	// fills only that subscription, and every other sender's frames still
	// arrive. Frames on the flooded subject itself are only as safe as
	// the server's permissions keep it (see RunUsers). Zero, or a server
	// the transport starts itself (no other client can connect),
	// subscribes once to every agent's frames.
	Agents int

	// PerDestination selects the subject layout of the agents' frames.
	// Default (false): a frame is published once on its sender's subject
	// consim.<run>.a.<from>, and every process of the run receives every
	// frame (it subscribes to consim.<run>.a.>) and hands it to its local
	// agents the frame names: one publish and one delivery per process,
	// the cheapest layout when one process runs all or most agents. With
	// PerDestination, a frame with a destination list is published once
	// per destination on consim.<run>.a.<from>.<to>, a frame for every
	// agent once on consim.<run>.a.<from>.all, and a process subscribes
	// only to consim.<run>.a.*.<id> for its agents and to
	// consim.<run>.a.*.all: the server delivers each process only its
	// agents' frames, which is what one agent per process (consim node)
	// wants. A process of either layout accepts frames of both; a process
	// with PerDestination does not hear a default-layout publisher, so
	// the processes of one run use the same layout.
	PerDestination bool

	// StatusStream makes the observer read the agents' statuses through a
	// JetStream stream on the server (StatusStreamName(RunID), in memory,
	// capturing consim.<run>.s.>) instead of a plain subscription, so that
	// the statuses published while no observer is connected are kept: a
	// coordinator that died can be restarted with Resume, replay the
	// run's statuses from the first and go on live. The server needs
	// JetStream (consim nats --jetstream) and the observer's user may
	// publish on $JS.API.>. Without Resume the observer starts a new
	// stream, replacing one left by an earlier observer of the run id;
	// with it, it reopens the stream and fails with ErrNoStatusStream if
	// there is none. The observer's ReleaseStream deletes the stream once
	// the run is over. Agents need nothing: they publish their statuses
	// as always, and the server stores them.
	StatusStream, Resume bool

	// extraUsers are added to the embedded server's users (tests).
	extraUsers []NATSUser
}

// Connection roles, which pick the user of a connection on a server the
// transport started.
const (
	roleAgents      = "agents"
	roleWorkers     = "workers"
	roleCoordinator = "coordinator"
)

// NATSTransport connects a run's agents and observer through NATS. All
// the endpoints of one transport share one connection (a process needs
// one, whatever the number of its agents); the observer and each oracle
// worker have their own. Subscription handlers check each message's MAC
// and move the frame into the queue of each local agent it is for; those
// queues and the NATS client's pending buffers are bounded, and what they
// drop is counted (EndpointStats).
type NATSTransport struct {
	opts NATSOptions
	log  hclog.Logger
	srv  *server.Server // embedded server, nil for an external URL
	url  string         // "" for in-process connections
	slow atomic.Int64
	mac  *macer
	keys keySource
	// users are the roles' users on the embedded server; user and
	// password, the process's user on an external one (may be empty).
	users          map[string]NATSUser
	user, password string
	secure         []nats.Option // TLS and credentials, see tls.go

	mu      sync.Mutex
	closers []func() error
	closed  bool
	lost    error    // first connection given up on, see Lost
	bus     *busConn // the agents' shared connection, once one connected
}

// NewNATSTransport starts the embedded server if opts.URL is empty, or
// checks that opts.URL is reachable, and returns the transport.
func NewNATSTransport(opts NATSOptions) (*NATSTransport, error) {
	if err := validRunID(opts.RunID); err != nil {
		return nil, err
	}
	if opts.URL != "" && opts.InProcess {
		return nil, fmt.Errorf("node: NATS transport: InProcess needs the embedded server, but URL %q is set", opts.URL)
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultNATSConnectTimeout
	}
	if opts.ReconnectWait <= 0 {
		opts.ReconnectWait = DefaultNATSReconnectWait
	}
	if opts.ReconnectTimeout <= 0 {
		opts.ReconnectTimeout = DefaultNATSReconnectTimeout
	}
	if opts.ReconnectBufSize <= 0 {
		opts.ReconnectBufSize = DefaultNATSReconnectBufSize
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	key, src, err := resolveKey(opts)
	if err != nil {
		return nil, err
	}
	t := &NATSTransport{opts: opts, log: opts.Logger.With("run", opts.RunID), url: opts.URL, mac: newMacer(key, opts.RunID), keys: src}
	if opts.InProcess && len(opts.extraUsers) == 0 {
		// No client outside this process can reach the server.
		t.mac = plainMacer()
	}
	if src == keyDerived {
		t.log.Warn("no run key given: frames carry a MAC under a key derived from the run id, which detects corruption and crossed runs but not forgery",
			"set", EnvRunKeyFile)
	}
	if opts.URL == "" {
		t.users = make(map[string]NATSUser)
		all := append([]NATSUser(nil), opts.extraUsers...)
		for role, mk := range map[string]func(string) (NATSUser, error){roleAgents: AgentsUser, roleWorkers: workersUser, roleCoordinator: CoordinatorUser} {
			u, err := mk(opts.RunID)
			if err != nil {
				return nil, err
			}
			t.users[role] = u
			all = append(all, u)
		}
		srv, err := StartNATSServer(NATSServerOptions{Name: "consim-" + opts.RunID, Host: "127.0.0.1", Port: server.RANDOM_PORT,
			InProcessOnly: opts.InProcess, Users: all})
		if err != nil {
			return nil, err
		}
		t.srv = srv
		if !opts.InProcess {
			t.url = srv.ClientURL()
		}
		return t, nil
	}
	if t.user, t.password, err = resolveUser(opts); err != nil {
		return nil, err
	}
	files, creds, nkey := resolveSecurity(opts)
	if t.secure, err = clientOptions(files, creds, nkey); err != nil {
		return nil, err
	}
	if t.user == "" && creds == "" && nkey == "" && files.Cert == "" && !loopbackURLs(opts.URL) {
		t.log.Warn("joining a NATS server beyond loopback without credentials: if the server admits anonymous clients, any of them may publish on this run's subjects, and a flood on an agent's subject costs that agent's frames; give each process a user of its own (consim nats users)",
			"url", redactedURLs(opts.URL))
	}
	nc, err := t.connect("probe", nil, nil)
	if err != nil {
		return nil, err
	}
	nc.Close()
	return t, nil
}

// validRunID accepts one NATS subject token of [A-Za-z0-9_-].
func validRunID(run string) error {
	if run == "" {
		return errors.New("node: NATS transport: empty run id")
	}
	for _, c := range run {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("node: NATS transport: run id %q: use letters, digits, '-' and '_' only", run)
		}
	}
	return nil
}

// URL returns the address clients in other processes connect to: the
// embedded server's TCP address or the external URL. It is empty when
// the embedded server accepts in-process connections only.
func (t *NATSTransport) URL() string { return t.url }

// KeyDerived reports whether the run key is DeriveRunKey(RunID), which
// authenticates nothing (see NATSOptions.Key).
func (t *NATSTransport) KeyDerived() bool { return t.keys == keyDerived }

// SlowConsumers returns the number of slow-consumer events reported by
// the transport's connections.
func (t *NATSTransport) SlowConsumers() int64 { return t.slow.Load() }

// connect opens one client connection named after the run and role. A
// connection that loses its server retries every ReconnectWait, keeping
// up to ReconnectBufSize bytes of publishes, which it flushes once
// reconnected (the server re-registers its subscriptions first). If no
// server answers within ReconnectTimeout, or the client library gives up,
// the connection is closed, the loss recorded for Lost and w's onLost
// hook called. w may be nil (a probe). onSlow, if set, runs on each
// slow-consumer event with the subscription that overflowed.
func (t *NATSTransport) connect(role string, w *connWatch, onSlow func(*nats.Subscription)) (*nats.Conn, error) {
	name := "consim-" + t.opts.RunID + "-" + role
	log := t.log.With("conn", role)
	if w == nil {
		w = t.newWatch(role)
	}
	var slowLogged atomic.Int64
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(t.opts.ConnectTimeout),
		nats.RetryOnFailedConnect(false),
		nats.MaxReconnects(-1), // the watch bounds the outage in time
		nats.ReconnectWait(t.opts.ReconnectWait),
		nats.ReconnectBufSize(t.opts.ReconnectBufSize),
		nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			if errors.Is(err, nats.ErrSlowConsumer) {
				t.slow.Add(1)
				if onSlow != nil && sub != nil {
					onSlow(sub)
				}
				if n := slowLogged.Add(1); n != 1 && n%1000 != 0 {
					return
				}
			}
			log.Warn("NATS asynchronous error", "subject", subject, "error", err)
		}),
		nats.DisconnectErrHandler(w.disconnected),
		nats.ReconnectHandler(w.reconnected),
		nats.ClosedHandler(w.closed),
	}
	if user, password := t.credentials(role); user != "" {
		opts = append(opts, nats.UserInfo(user, password))
	}
	opts = append(opts, t.secure...)
	url := t.url
	if t.srv != nil && t.opts.InProcess {
		// The in-process pipe is always read by the server: no write
		// deadline, which would cost two timer updates per flush.
		opts = append(opts, nats.InProcessServer(t.srv), nats.FlusherTimeout(0))
		url = "in-process"
	} else {
		opts = append(opts, nats.FlusherTimeout(0), nats.PingInterval(natsTCPPingInterval), nats.MaxPingsOutstanding(natsTCPMaxPings))
	}
	nc, err := nats.Connect(t.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("node: connect %s to NATS at %s: %w", name, url, err)
	}
	return nc, nil
}

// credentials returns the user of a connection in role: the role's user
// on the embedded server (agents, workers, coordinator by the role's
// prefix), the process's user on an external one.
func (t *NATSTransport) credentials(role string) (user, password string) {
	if t.users == nil {
		return t.user, t.password
	}
	switch {
	case strings.HasPrefix(role, "worker"):
		role = roleWorkers
	case role == "observer":
		role = roleCoordinator
	default:
		role = roleAgents
	}
	u := t.users[role]
	return u.Name, u.Password
}

// Lost returns the first connection of the transport that was closed
// because its server stayed unreachable (see NATSOptions.ReconnectTimeout),
// wrapping ErrNATSConnectionLost, or nil.
func (t *NATSTransport) Lost() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lost
}

// noteLost records err as the transport's loss if it is the first.
func (t *NATSTransport) noteLost(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost == nil {
		t.lost = err
	}
}

// track registers c to be closed by Close.
func (t *NATSTransport) track(c func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("node: NATS transport closed")
	}
	t.closers = append(t.closers, c)
	return nil
}

// subscribe subscribes nc to subject with handler and sets the
// subscription's pending limits.
func subscribe(nc *nats.Conn, subject, queue string, handler nats.MsgHandler) error {
	_, err := subscription(nc, subject, queue, handler)
	return err
}

// subscription is subscribe, returning the subscription.
func subscription(nc *nats.Conn, subject, queue string, handler nats.MsgHandler) (*nats.Subscription, error) {
	return limitedSubscription(nc, subject, queue, handler, natsPendingMsgs, natsPendingBytes)
}

// limitedSubscription is subscription with the pending limits msgs and
// bytes.
func limitedSubscription(nc *nats.Conn, subject, queue string, handler nats.MsgHandler, msgs, bytes int) (*nats.Subscription, error) {
	sub, err := nc.QueueSubscribe(subject, queue, handler)
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	if err := sub.SetPendingLimits(msgs, bytes); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	return sub, nil
}

// perSender reports whether the transport subscribes to each agent's
// subjects separately (see NATSOptions.Agents), and the pending bytes of
// each of subs such subscriptions.
func (t *NATSTransport) perSender(subs int) (bool, int) {
	if t.srv != nil || t.opts.Agents <= 0 {
		return false, 0
	}
	return true, max(natsPendingBytes/max(subs, 1), 2*natsMaxPayload)
}

// subscribeSenders subscribes nc, with handler, to subject(j) for each
// agent j of the run, each with a pending limit of its own (see
// NATSOptions.Agents), and returns the subscriptions.
func (t *NATSTransport) subscribeSenders(nc *nats.Conn, subject func(j int) string, handler nats.MsgHandler, bytes int) ([]*nats.Subscription, error) {
	subs := make([]*nats.Subscription, 0, t.opts.Agents)
	for j := range t.opts.Agents {
		sub, err := limitedSubscription(nc, subject(j), "", handler, natsSenderPendingMsgs, bytes)
		if err != nil {
			unsubscribe(subs)
			return nil, err
		}
		subs = append(subs, sub)
	}
	return subs, nil
}

// Endpoint implements Transport: agent id joins the process's shared
// connection, whose subscriptions are registered at the server when
// Endpoint returns. Each id connects once per transport.
func (t *NATSTransport) Endpoint(id int) (Endpoint, error) {
	if id < 0 || uint64(id) > MaxFrameID {
		return nil, fmt.Errorf("node: NATS endpoint for agent %d: id outside [0, %d]", id, uint64(MaxFrameID))
	}
	b, err := t.busConn()
	if err != nil {
		return nil, fmt.Errorf("node: NATS endpoint for agent %d: %w", id, err)
	}
	run := t.opts.RunID
	e := &natsEndpoint{
		bus: b, id: id,
		subject: SubjectAgent(run, id), subjectAll: SubjectAgentAll(run, id), status: SubjectStatus(run, id), eval: SubjectEval(run),
		inbox: newBoundedQueue(inboxCap), control: newMailbox(controlMailboxBuffer),
	}
	e.control.wake = e.inbox.signal
	e.window.Store(-1)
	if err := b.register(e); err != nil {
		return nil, fmt.Errorf("node: NATS endpoint for agent %d: %w", id, err)
	}
	return e, nil
}

// Observer implements Transport: a connection of its own, subscribed to
// the statuses, that first claims the run id on the server (see claim):
// a second observer of the same run id on one server is refused with an
// error wrapping ErrRunClaimed. The claim lasts as long as the observer.
func (t *NATSTransport) Observer() (Observer, error) {
	w := t.newWatch("observer")
	o := &natsObserver{mac: t.mac, ctl: SubjectControl(t.opts.RunID), statuses: newMailbox(mailboxBuffer), timeout: t.opts.ConnectTimeout}
	nc, err := t.connect("observer", w, o.drops.note)
	if err != nil {
		return nil, err
	}
	o.nc = nc
	err = claim(nc, t.opts.RunID, t.opts.ConnectTimeout)
	if err == nil {
		onStatus := func(m *nats.Msg) { o.onStatus(m.Subject, m.Data) }
		switch split, bytes := t.perSender(t.opts.Agents); {
		case t.opts.StatusStream:
			o.stream, err = openStatusStream(nc, t.opts.RunID, t.opts.Resume, t.opts.ConnectTimeout, o.onStatus)
		case split:
			// A flood of statuses on one agent's subject fills only its
			// own subscription.
			_, err = t.subscribeSenders(nc, func(j int) string { return SubjectStatus(t.opts.RunID, j) }, onStatus, bytes)
		default:
			err = subscribe(nc, SubjectStatuses(t.opts.RunID), "", onStatus)
		}
	}
	if err == nil {
		err = nc.FlushTimeout(t.opts.ConnectTimeout)
	}
	if err == nil {
		err = t.track(o.Close)
	}
	if err != nil {
		o.Close()
		return nil, fmt.Errorf("node: NATS observer: %w", err)
	}
	w.onLost(func() { o.Close() })
	return o, nil
}

// Close implements Transport: it closes the endpoints and observers not
// yet closed, the shared connection, and shuts the embedded server down.
func (t *NATSTransport) Close() error {
	t.mu.Lock()
	closers := t.closers
	t.closers, t.closed = nil, true
	t.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	if t.srv != nil {
		t.srv.Shutdown()
		t.srv.WaitForShutdown()
	}
	return errors.Join(errs...)
}

type natsEndpoint struct {
	bus     *busConn
	id      int
	subject string // SubjectAgent(run, id)
	status  string
	eval    string
	inbox   *queue
	control *mailbox
	once    sync.Once

	// round and window are the agent's current round and its
	// FutureWindow (see setRound): the connection drops frames of later
	// rounds before they reach the queue. window < 0 until set.
	round, window atomic.Int64
	ahead         atomic.Int64 // frames admit dropped

	// subjectAll and subjects[to] are the agent's subjects in the
	// per-destination layout.
	subjectAll string

	mu       sync.Mutex
	stats    EndpointStats // Refused, Malformed, SlowConsumer charged to this endpoint
	subjects map[int]string
	// subs are the agent's own subscriptions in the per-destination
	// layout: consim.<run>.a.*.<id>, or consim.<run>.a.<j>.<id> for each
	// sender j (NATSOptions.Agents).
	subs []*nats.Subscription
}

// setRound implements roundTracker.
func (e *natsEndpoint) setRound(t, window int) {
	e.round.Store(int64(t))
	e.window.Store(int64(window))
}

// admit reports whether a frame of round t may be queued for the agent:
// not more than its window ahead of its round. Frames it refuses are
// counted (EndpointStats.Ahead).
func (e *natsEndpoint) admit(t int) bool {
	if e.wouldAdmit(t) {
		return true
	}
	e.ahead.Add(1)
	return false
}

// wouldAdmit is admit without the count.
func (e *natsEndpoint) wouldAdmit(t int) bool {
	w := e.window.Load()
	return w < 0 || int64(t) <= e.round.Load()+w
}

// Publish implements Endpoint: one message on the agent's own subject,
// whatever the number of destinations; in the per-destination layout,
// the same message once per destination (see NATSOptions.PerDestination).
func (e *natsEndpoint) Publish(frame []byte) error {
	if !e.bus.t.opts.PerDestination {
		return e.bus.t.mac.seal(macAgent, frame, func(msg []byte) error { return e.bus.nc.Publish(e.subject, msg) })
	}
	h, err := decodeAddress(frame)
	if err != nil {
		return fmt.Errorf("node: publish of agent %d: %w", e.id, err)
	}
	return e.bus.t.mac.seal(macAgent, frame, func(msg []byte) error {
		if h.NTo == 0 {
			return e.bus.nc.Publish(e.subjectAll, msg)
		}
		for k := range h.NTo {
			if err := e.bus.nc.Publish(e.subjectTo(FrameTo(frame, h, k)), msg); err != nil {
				return err
			}
		}
		return nil
	})
}

// subjectTo returns SubjectAgentTo(run, e.id, to), built once per to.
func (e *natsEndpoint) subjectTo(to int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.subjects[to]
	if !ok {
		if e.subjects == nil {
			e.subjects = make(map[int]string)
		}
		s = e.subject + "." + strconv.Itoa(to)
		e.subjects[to] = s
	}
	return s
}

// PublishEval implements EvalPublisher: one oracle worker of the queue
// group gets frame.
func (e *natsEndpoint) PublishEval(frame []byte) error {
	return e.bus.t.mac.seal(macEval, frame, func(msg []byte) error { return e.bus.nc.Publish(e.eval, msg) })
}

func (e *natsEndpoint) Inbox() <-chan []byte { return e.inbox.C() }

// TakeInbox implements Batcher.
func (e *natsEndpoint) TakeInbox(dst [][]byte) ([][]byte, bool) { return e.inbox.take(dst) }

// WaitInbox implements Batcher.
func (e *natsEndpoint) WaitInbox() { e.inbox.wait() }

func (e *natsEndpoint) waitInboxFor(k int) { e.inbox.waitFor(k) }

// Wake implements Batcher.
func (e *natsEndpoint) Wake() { e.inbox.signal() }

func (e *natsEndpoint) Status(frame []byte) error {
	return e.bus.t.mac.seal(macStatus, frame, func(msg []byte) error { return e.bus.nc.Publish(e.status, msg) })
}

func (e *natsEndpoint) Control() <-chan []byte { return e.control.C() }

func (e *natsEndpoint) lastControl() int64 { return e.control.heard.Load() }

// Stats implements StatsReporter.
func (e *natsEndpoint) Stats() EndpointStats {
	if n := e.bus.drops.take(); n > 0 {
		e.bus.charge(nil, func(s *EndpointStats) { s.SlowConsumer += n })
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.Refused = cloneCounts(e.stats.Refused)
	s.Overflow = e.inbox.dropped.Load()
	s.Ahead = e.ahead.Load()
	return s
}

// charge counts a dropped frame against this endpoint.
func (e *natsEndpoint) charge(f func(s *EndpointStats)) {
	e.mu.Lock()
	f(&e.stats)
	e.mu.Unlock()
}

// Close leaves the shared connection and closes the endpoint's channels;
// the last endpoint of the connection to close waits until the server has
// everything the connection published (at most natsCloseFlushTime).
func (e *natsEndpoint) Close() error {
	var err error
	e.once.Do(func() {
		last := e.bus.unregister(e)
		nc := e.bus.nc
		// The connection is shared: its flusher sends every publish
		// without being asked, and one round trip when the last local
		// agent closes confirms them all, instead of one per agent (N
		// serial round trips when N agents end together).
		if last && nc.IsConnected() {
			if ferr := nc.FlushTimeout(natsCloseFlushTime); ferr != nil {
				err = fmt.Errorf("node: close NATS endpoint of agent %d: %w", e.id, ferr)
			}
		}
		e.inbox.close()
		e.control.close()
	})
	return err
}

// cloneCounts copies a per-subject count map; nil stays nil.
func cloneCounts(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

type natsObserver struct {
	nc       *nats.Conn
	mac      *macer
	ctl      string
	statuses *mailbox
	timeout  time.Duration
	stream   *statusStream // nil without NATSOptions.StatusStream
	once     sync.Once
	drops    clientDrops // statuses the NATS client dropped

	mu      sync.Mutex
	refused map[string]int64
	dropped int64 // drops taken from drops
}

// onStatus checks a status message and queues its frame.
func (o *natsObserver) onStatus(subject string, data []byte) {
	frame, ok := o.mac.open(macStatus, data)
	if !ok {
		o.mu.Lock()
		if o.refused == nil {
			o.refused = make(map[string]int64)
		}
		o.refused[subject]++
		o.mu.Unlock()
		return
	}
	o.statuses.put(frame)
}

func (o *natsObserver) Statuses() <-chan []byte { return o.statuses.C() }

// Control seals and publishes frame and waits until the server has it.
func (o *natsObserver) Control(frame []byte) error {
	if err := o.mac.seal(macControl, frame, func(msg []byte) error { return o.nc.Publish(o.ctl, msg) }); err != nil {
		return fmt.Errorf("node: publish control: %w", err)
	}
	if err := o.nc.FlushTimeout(o.timeout); err != nil {
		return fmt.Errorf("node: publish control: %w", err)
	}
	return nil
}

// Stats implements StatsReporter: the status messages the observer
// refused, and those the NATS client dropped from a full subscription.
func (o *natsObserver) Stats() EndpointStats {
	n := o.drops.take()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dropped += n
	return EndpointStats{Refused: cloneCounts(o.refused), SlowConsumer: o.dropped}
}

// clientDrops counts the messages the NATS client of one connection
// dropped because a subscription's pending limit was reached (a slow
// consumer). The client reports only the first overflow of an episode;
// the count is read from each subscription that overflowed, and take
// hands over each drop once.
type clientDrops struct {
	mu   sync.Mutex
	seen map[*nats.Subscription]int // subscriptions that overflowed: drops taken so far
}

// note records that sub overflowed.
func (c *clientDrops) note(sub *nats.Subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = make(map[*nats.Subscription]int)
	}
	if _, ok := c.seen[sub]; !ok {
		c.seen[sub] = 0
	}
}

// take returns the messages dropped since the last take.
func (c *clientDrops) take() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for sub, taken := range c.seen {
		if d, err := sub.Dropped(); err == nil && d > taken {
			n += int64(d - taken)
			c.seen[sub] = d
		}
	}
	return n
}

// ReleaseStream deletes the run's status stream (NATSOptions.StatusStream)
// from the server: the run is over and no coordinator will resume it. It
// does nothing without a stream.
func (o *natsObserver) ReleaseStream() error {
	if o.stream == nil {
		return nil
	}
	return o.stream.remove()
}

func (o *natsObserver) Close() error {
	o.once.Do(func() {
		if o.stream != nil {
			o.stream.stop()
		}
		if o.nc != nil {
			o.nc.Close()
		}
		o.statuses.close()
	})
	return nil
}

// loopbackURLs reports whether every server of a comma-separated URL list
// is on a loopback interface.
func loopbackURLs(urls string) bool {
	for _, u := range strings.Split(urls, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || !isLoopback(p.Hostname()) {
			return false
		}
	}
	return true
}

// redactedURLs is a comma-separated URL list with any password replaced.
func redactedURLs(urls string) string {
	parts := strings.Split(urls, ",")
	for k, u := range parts {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil {
			parts[k] = p.Redacted()
		}
	}
	return strings.Join(parts, ",")
}
