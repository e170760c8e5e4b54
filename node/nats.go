package node

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// NATS subjects of a run (run is NATSOptions.RunID):
//
//	consim.<run>.in.<id>  frames to agent id (Endpoint.Send): data, reduce terms
//	consim.<run>.all      frames to every agent (Broadcast): reduce sums, leaves
//	consim.<run>.status   agent statuses to the coordinator
//	consim.<run>.ctl      coordinator controls to every agent
//	consim.<run>.eval     evaluation requests to the oracle workers, who
//	                      subscribe in the queue group EvalQueue: each
//	                      chunk goes to one of them, and its results to
//	                      the requesting agent's in.<id>
//
// NATS keeps the order of one publisher's messages on one subject; the
// round loop relies on nothing more. Frames on in.<id> and all may
// interleave, which it tolerates: every frame names its (round, phase),
// and a leave names the first phase its sender skips.

// SubjectInbox returns the subject of agent id's inbox in run.
func SubjectInbox(run string, id int) string { return "consim." + run + ".in." + strconv.Itoa(id) }

// SubjectAll returns the broadcast subject of run.
func SubjectAll(run string) string { return "consim." + run + ".all" }

// SubjectStatus returns the status subject of run.
func SubjectStatus(run string) string { return "consim." + run + ".status" }

// SubjectControl returns the control subject of run.
func SubjectControl(run string) string { return "consim." + run + ".ctl" }

// SubjectEval returns the subject of run's evaluation requests.
func SubjectEval(run string) string { return "consim." + run + ".eval" }

// EvalQueue is the NATS queue group of the oracle workers on SubjectEval.
const EvalQueue = "oracle-workers"

// Limits of the embedded server and of each subscription.
const (
	natsMaxPayload     = 8 << 20   // bytes per message: 1M float64 values
	natsMaxPending     = 256 << 20 // bytes the server queues per client
	natsPendingMsgs    = 1 << 20   // messages a subscription may queue
	natsPendingBytes   = 1 << 30   // bytes a subscription may queue
	natsCloseFlushTime = 2 * time.Second
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
	// no port and connects every client in-process (no TCP). Without it
	// the embedded server listens on 127.0.0.1 on a random port, see URL().
	InProcess bool
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
}

// NATSTransport connects a run's agents and observer through NATS. Each
// Endpoint and Observer has its own connection, as a separate process
// would. Subscription handlers move frames into unbounded in-memory
// queues, so the client never falls behind the server; a slow-consumer
// event is still logged and counted (SlowConsumers).
type NATSTransport struct {
	opts NATSOptions
	log  hclog.Logger
	srv  *server.Server // embedded server, nil for an external URL
	url  string         // "" for in-process connections
	slow atomic.Int64

	mu      sync.Mutex
	closers []func() error
	closed  bool
	lost    error // first connection given up on, see Lost
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
	t := &NATSTransport{opts: opts, log: opts.Logger.With("run", opts.RunID), url: opts.URL}
	if opts.URL == "" {
		srv, err := startServer(opts.RunID, opts.InProcess)
		if err != nil {
			return nil, err
		}
		t.srv = srv
		if !opts.InProcess {
			t.url = srv.ClientURL()
		}
		return t, nil
	}
	nc, err := t.connect("probe", nil)
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

// startServer starts an embedded nats-server: in-process only, or on
// 127.0.0.1 at a random port.
func startServer(run string, inProcess bool) (*server.Server, error) {
	return StartNATSServer(NATSServerOptions{Name: "consim-" + run, Host: "127.0.0.1", Port: server.RANDOM_PORT, InProcessOnly: inProcess})
}

// URL returns the address clients in other processes connect to: the
// embedded server's TCP address or the external URL. It is empty when
// the embedded server accepts in-process connections only.
func (t *NATSTransport) URL() string { return t.url }

// SlowConsumers returns the number of slow-consumer events reported by
// the transport's connections.
func (t *NATSTransport) SlowConsumers() int64 { return t.slow.Load() }

// connect opens one client connection named after the run and role. A
// connection that loses its server retries every ReconnectWait, keeping
// up to ReconnectBufSize bytes of publishes, which it flushes once
// reconnected (the server re-registers its subscriptions first). If no
// server answers within ReconnectTimeout, or the client library gives up,
// the connection is closed, the loss recorded for Lost and w's onLost
// hook called. w may be nil (a probe).
func (t *NATSTransport) connect(role string, w *connWatch) (*nats.Conn, error) {
	name := "consim-" + t.opts.RunID + "-" + role
	log := t.log.With("conn", role)
	if w == nil {
		w = t.newWatch(role)
	}
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
			}
			log.Warn("NATS asynchronous error", "subject", subject, "error", err)
		}),
		nats.DisconnectErrHandler(w.disconnected),
		nats.ReconnectHandler(w.reconnected),
		nats.ClosedHandler(w.closed),
	}
	url := t.url
	if t.srv != nil && t.opts.InProcess {
		opts = append(opts, nats.InProcessServer(t.srv))
		url = "in-process"
	}
	nc, err := nats.Connect(t.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("node: connect %s to NATS at %s: %w", name, url, err)
	}
	return nc, nil
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

// frameSink is where a subscription queues the frames it receives.
type frameSink interface{ put(frame []byte) bool }

// subscribe subscribes nc to subject, queueing each message's data in mb.
func subscribe(nc *nats.Conn, subject string, mb frameSink) error {
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) { mb.put(m.Data) })
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", subject, err)
	}
	if err := sub.SetPendingLimits(natsPendingMsgs, natsPendingBytes); err != nil {
		return fmt.Errorf("subscribe %s: %w", subject, err)
	}
	return nil
}

// Endpoint implements Transport: a connection subscribed to the agent's
// inbox, the broadcast and the control subjects. The subscriptions are
// registered at the server when Endpoint returns.
func (t *NATSTransport) Endpoint(id int) (Endpoint, error) {
	if id < 0 {
		return nil, fmt.Errorf("node: NATS endpoint for agent %d: negative id", id)
	}
	w := t.newWatch("agent-" + strconv.Itoa(id))
	nc, err := t.connect("agent-"+strconv.Itoa(id), w)
	if err != nil {
		return nil, err
	}
	run := t.opts.RunID
	e := &natsEndpoint{
		nc: nc, id: id, run: run,
		all: SubjectAll(run), status: SubjectStatus(run), eval: SubjectEval(run),
		inbox: newQueue(), control: newMailbox(),
	}
	err = errors.Join(
		subscribe(nc, SubjectInbox(run, id), e.inbox),
		subscribe(nc, e.all, e.inbox),
		subscribe(nc, SubjectControl(run), e.control),
	)
	if err == nil {
		err = nc.FlushTimeout(t.opts.ConnectTimeout)
	}
	if err == nil {
		err = t.track(e.Close)
	}
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("node: NATS endpoint for agent %d: %w", id, err)
	}
	w.onLost(func() { e.Close() })
	return e, nil
}

// Observer implements Transport: a connection subscribed to the status
// subject, registered at the server when Observer returns.
func (t *NATSTransport) Observer() (Observer, error) {
	w := t.newWatch("observer")
	nc, err := t.connect("observer", w)
	if err != nil {
		return nil, err
	}
	o := &natsObserver{nc: nc, ctl: SubjectControl(t.opts.RunID), statuses: newMailbox(), timeout: t.opts.ConnectTimeout}
	err = subscribe(nc, SubjectStatus(t.opts.RunID), o.statuses)
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
// yet closed and shuts the embedded server down.
func (t *NATSTransport) Close() error {
	t.mu.Lock()
	closers := t.closers
	t.closers, t.closed = nil, true
	t.mu.Unlock()
	var errs []error
	for _, c := range closers {
		errs = append(errs, c())
	}
	if t.srv != nil {
		t.srv.Shutdown()
		t.srv.WaitForShutdown()
	}
	return errors.Join(errs...)
}

type natsEndpoint struct {
	nc          *nats.Conn
	id          int
	run         string
	all, status string
	eval        string
	inbox       *queue
	control     *mailbox
	once        sync.Once

	mu       sync.Mutex
	subjects []string // subjects[to]: SubjectInbox(run, to), built on first use
}

// inboxSubject returns the cached subject of agent to's inbox.
func (e *natsEndpoint) inboxSubject(to int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.subjects) <= to {
		e.subjects = append(e.subjects, SubjectInbox(e.run, len(e.subjects)))
	}
	return e.subjects[to]
}

func (e *natsEndpoint) Send(to int, frame []byte) error {
	if to < 0 {
		return fmt.Errorf("node: agent %d sends to agent %d: negative id", e.id, to)
	}
	return e.nc.Publish(e.inboxSubject(to), frame)
}

func (e *natsEndpoint) Broadcast(frame []byte) error { return e.nc.Publish(e.all, frame) }

// PublishEval implements EvalPublisher: one oracle worker of the queue
// group gets frame.
func (e *natsEndpoint) PublishEval(frame []byte) error { return e.nc.Publish(e.eval, frame) }

func (e *natsEndpoint) Inbox() <-chan []byte { return e.inbox.C() }

// TakeInbox implements Batcher.
func (e *natsEndpoint) TakeInbox(dst [][]byte) ([][]byte, bool) { return e.inbox.take(dst) }

// WaitInbox implements Batcher.
func (e *natsEndpoint) WaitInbox() { e.inbox.wait() }

// Wake implements Batcher.
func (e *natsEndpoint) Wake() { e.inbox.signal() }

func (e *natsEndpoint) Status(frame []byte) error { return e.nc.Publish(e.status, frame) }

func (e *natsEndpoint) Control() <-chan []byte { return e.control.C() }

// Close flushes what the endpoint published, closes its connection and
// then its channels.
func (e *natsEndpoint) Close() error {
	var err error
	e.once.Do(func() {
		if e.nc.IsConnected() {
			if ferr := e.nc.FlushTimeout(natsCloseFlushTime); ferr != nil {
				err = fmt.Errorf("node: close NATS endpoint of agent %d: %w", e.id, ferr)
			}
		}
		e.nc.Close()
		e.inbox.close()
		e.control.close()
	})
	return err
}

type natsObserver struct {
	nc       *nats.Conn
	ctl      string
	statuses *mailbox
	timeout  time.Duration
	once     sync.Once
}

func (o *natsObserver) Statuses() <-chan []byte { return o.statuses.C() }

// Control publishes frame and waits until the server has it.
func (o *natsObserver) Control(frame []byte) error {
	if err := o.nc.Publish(o.ctl, frame); err != nil {
		return fmt.Errorf("node: publish control: %w", err)
	}
	if err := o.nc.FlushTimeout(o.timeout); err != nil {
		return fmt.Errorf("node: publish control: %w", err)
	}
	return nil
}

func (o *natsObserver) Close() error {
	o.once.Do(func() {
		o.nc.Close()
		o.statuses.close()
	})
	return nil
}
