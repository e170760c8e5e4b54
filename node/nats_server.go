package node

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// NATSServerOptions configure a nats-server started by StartNATSServer.
type NATSServerOptions struct {
	// Name of the server, as clients see it. Default "consim".
	Name string
	// Host is the interface to listen on. Default 127.0.0.1.
	Host string
	// Port to listen on; server.RANDOM_PORT (-1) picks a free one, and
	// zero selects the NATS default 4222.
	Port int
	// InProcessOnly listens on no port: clients connect in-process only.
	InProcessOnly bool
	// ReadyTimeout bounds the wait for the server to accept connections.
	// Default 5 s.
	ReadyTimeout time.Duration
	// Users, if any, are the only clients the server accepts, each with
	// its publish and subscribe permissions (see RunUsers). Without
	// users, any client may connect and publish anywhere: the frame MACs
	// then protect the runs.
	Users []NATSUser
	// TLS, if set, serves TLS with TLS.Cert and TLS.Key, and with TLS.CA
	// requires client certificates signed by that CA (see TLSFiles).
	TLS TLSFiles
	// Insecure allows a server on an interface beyond loopback without
	// users and without verified client certificates; without it such a
	// server is refused with ErrInsecureListen.
	Insecure bool
	// JetStream enables JetStream, which keeps a run's statuses while its
	// coordinator is down (NATSOptions.StatusStream), with its store in
	// StoreDir (required with JetStream; the status streams themselves
	// are in memory) and at most JetStreamMaxMemory bytes of streams in
	// memory (0: the server's default, three quarters of the host's
	// memory).
	JetStream          bool
	StoreDir           string
	JetStreamMaxMemory int64
}

// StartNATSServer starts a nats-server with the limits consim's transports
// rely on (8 MiB messages, 256 MiB queued per client), and the users of
// o.Users if any, and waits until it
// accepts connections. The caller shuts it down (Shutdown, then
// WaitForShutdown); its client URL is ClientURL().
func StartNATSServer(o NATSServerOptions) (*server.Server, error) {
	if o.Name == "" {
		o.Name = "consim"
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 5 * time.Second
	}
	so := &server.Options{
		ServerName: o.Name,
		Host:       o.Host,
		Port:       o.Port,
		DontListen: o.InProcessOnly,
		NoLog:      true,
		NoSigs:     true,
		MaxPayload: natsMaxPayload,
		MaxPending: natsMaxPending,
	}
	if len(o.Users) > 0 {
		so.Users, so.Nkeys = serverUsers(o.Users)
	}
	if o.JetStream {
		if o.StoreDir == "" {
			return nil, errors.New("node: NATS server with JetStream: no store directory")
		}
		so.JetStream, so.StoreDir, so.JetStreamMaxMemory = true, o.StoreDir, o.JetStreamMaxMemory
	}
	if err := checkExposure(o); err != nil {
		return nil, err
	}
	if err := applyTLS(so, o); err != nil {
		return nil, err
	}
	srv, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("node: NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(o.ReadyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		where := "in-process"
		if !o.InProcessOnly {
			where = fmt.Sprintf("on %s:%d (is the port in use?)", o.Host, o.Port)
		}
		return nil, fmt.Errorf("node: NATS server %s not ready within %v", where, o.ReadyTimeout)
	}
	return srv, nil
}
