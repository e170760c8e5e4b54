package node

import (
	"fmt"

	"github.com/hashicorp/go-hclog"
)

// TransportKind names one of the three ways a run's frames move.
type TransportKind string

const (
	// TransportChan moves frames through in-memory queues: one process,
	// goroutine agents, no NATS.
	TransportChan TransportKind = "chan"
	// TransportNATS starts an embedded nats-server that listens on no
	// port; every agent connects in-process. The default of consim run.
	TransportNATS TransportKind = "nats"
	// TransportNATSTCP uses NATS over TCP: an embedded nats-server on
	// 127.0.0.1 at a random port, or the server at URL if one is given.
	TransportNATSTCP TransportKind = "nats-tcp"
)

// TransportKinds lists the kinds NewTransport accepts.
var TransportKinds = []TransportKind{TransportChan, TransportNATS, TransportNATSTCP}

// TransportConfig selects and configures a transport.
type TransportConfig struct {
	Kind TransportKind
	// N is the number of agents: the channel transport's queues, and a
	// subscription per sender on a NATS server given by URL
	// (NATSOptions.Agents).
	N int
	// RunID namespaces the NATS subjects (nats, nats-tcp).
	RunID string
	// URL of an external NATS server (nats-tcp only); empty starts the
	// embedded one.
	URL string
	// Key, User and Password are NATSOptions.Key, User and Password
	// (nats, nats-tcp): empty selects their documented defaults.
	Key            []byte
	User, Password string
	Logger         hclog.Logger
}

// NewTransport returns the transport cfg selects.
func NewTransport(cfg TransportConfig) (Transport, error) {
	switch cfg.Kind {
	case TransportChan:
		return NewChanTransport(cfg.N)
	case TransportNATS:
		if cfg.URL != "" {
			return nil, fmt.Errorf("node: transport %q connects in-process to an embedded server: use %q for URL %s", cfg.Kind, TransportNATSTCP, cfg.URL)
		}
		return NewNATSTransport(NATSOptions{RunID: cfg.RunID, InProcess: true, Key: cfg.Key, Logger: cfg.Logger})
	case TransportNATSTCP:
		return NewNATSTransport(NATSOptions{RunID: cfg.RunID, URL: cfg.URL, Agents: cfg.N, Key: cfg.Key, User: cfg.User, Password: cfg.Password, Logger: cfg.Logger})
	}
	return nil, fmt.Errorf("node: unknown transport %q: want one of %v", cfg.Kind, TransportKinds)
}
