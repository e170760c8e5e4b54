package node

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"
)

// ErrNATSConnectionLost is wrapped by the error NATSTransport.Lost returns:
// a connection's server stayed unreachable for longer than
// NATSOptions.ReconnectTimeout, or the client library gave up on it.
var ErrNATSConnectionLost = errors.New("NATS connection lost")

// connWatch bounds the outages of one NATS connection. On a disconnect it
// arms a timer of NATSOptions.ReconnectTimeout; a reconnect disarms it.
// When it fires, or the client library closes the connection by itself,
// the watch closes the connection, records the loss with the transport
// and runs the onLost hook, which closes the endpoint or observer built
// on the connection, so that its reader ends instead of waiting forever.
type connWatch struct {
	t     *NATSTransport
	role  string
	log   hclog.Logger
	bound time.Duration

	mu      sync.Mutex
	timer   *time.Timer
	cause   error  // last disconnect error
	gone    bool   // the connection was given up
	hook    func() // runs once, when gone
	hookRan bool
}

func (t *NATSTransport) newWatch(role string) *connWatch {
	return &connWatch{t: t, role: role, log: t.log.With("conn", role), bound: t.opts.ReconnectTimeout}
}

// disconnected is the nats.DisconnectErrHandler.
func (w *connWatch) disconnected(nc *nats.Conn, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.cause = err
	}
	if w.gone || w.timer != nil {
		return
	}
	w.log.Warn("NATS disconnected; reconnecting", "error", err, "give_up_after", w.bound)
	w.timer = time.AfterFunc(w.bound, func() {
		w.giveUp(nc, fmt.Errorf("no NATS server reachable for %v", w.bound))
	})
}

// reconnected is the nats.ReconnectHandler.
func (w *connWatch) reconnected(nc *nats.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if !w.gone {
		w.log.Info("NATS reconnected", "server", nc.ConnectedUrlRedacted())
	}
}

// closed is the nats.ClosedHandler. With NoCallbacksAfterClientClose it
// runs only when the library closed the connection on its own.
func (w *connWatch) closed(nc *nats.Conn) {
	cause := errors.New("closed by the NATS client")
	if err := nc.LastError(); err != nil {
		cause = fmt.Errorf("closed by the NATS client: %w", err)
	}
	w.giveUp(nc, cause)
}

// giveUp closes nc for good, records the loss and runs the hook.
func (w *connWatch) giveUp(nc *nats.Conn, reason error) {
	w.mu.Lock()
	if w.gone {
		w.mu.Unlock()
		return
	}
	w.gone = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	err := fmt.Errorf("%w: %s: %w", ErrNATSConnectionLost, w.role, reason)
	if w.cause != nil {
		err = fmt.Errorf("%w (last error: %v)", err, w.cause)
	}
	w.mu.Unlock()

	w.log.Error("giving up on NATS", "error", err)
	w.t.noteLost(err)
	nc.Close()
	w.runHook()
}

// onLost sets the hook; if the connection is already gone it runs now.
func (w *connWatch) onLost(hook func()) {
	w.mu.Lock()
	w.hook = hook
	gone := w.gone
	w.mu.Unlock()
	if gone {
		w.runHook()
	}
}

// runHook runs the hook once, if set.
func (w *connWatch) runHook() {
	w.mu.Lock()
	hook := w.hook
	run := hook != nil && !w.hookRan
	if run {
		w.hookRan = true
	}
	w.mu.Unlock()
	if run {
		hook()
	}
}
