package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoStatusStream is wrapped by the error of an observer told to resume
// a run (NATSOptions.Resume) whose status stream is not on the server.
var ErrNoStatusStream = errors.New("no status stream of the run on this NATS server")

// ErrNoJetStream is wrapped by the error of an observer told to read
// statuses through a stream (NATSOptions.StatusStream) from a server
// without JetStream.
var ErrNoJetStream = errors.New("the NATS server has no JetStream (start it with 'consim nats --jetstream')")

// StatusStreamName returns the name of the JetStream stream that keeps
// the statuses of run (NATSOptions.StatusStream): CONSIM_<run>.
func StatusStreamName(run string) string { return "CONSIM_" + run }

// statusStream is an observer's view of its run's status stream: an
// ordered consumer that hands every stored status, from the first, to
// the observer's handler, then the new ones as they come.
type statusStream struct {
	js      jetstream.JetStream
	name    string
	consume jetstream.ConsumeContext
	timeout time.Duration
}

// openStatusStream makes (resume false) or reopens (resume true) the
// status stream of run on nc's server and starts handing its messages,
// in stream order from the first, to handle (subject, data).
//
// The stream captures consim.<run>.s.>, the subjects the agents publish
// their statuses on, in the server's memory, with no limit but the
// server's: a status it dropped would leave a metric row incomplete. A
// new stream replaces one an earlier observer of the run id left behind.
func openStatusStream(nc *nats.Conn, run string, resume bool, timeout time.Duration, handle func(subject string, data []byte)) (*statusStream, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("status stream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, fmt.Errorf("status stream: %w", ErrNoJetStream)
		}
		return nil, fmt.Errorf("status stream: JetStream account: %w", err)
	}
	name := StatusStreamName(run)
	var s jetstream.Stream
	if resume {
		s, err = js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("resume run %s: %w (was its coordinator started with --jetstream, and is this its server?)", run, ErrNoStatusStream)
		}
	} else {
		if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("status stream %s: delete the stream of an earlier run: %w", name, err)
		}
		s, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        name,
			Description: "statuses of consim run " + run,
			Subjects:    []string{SubjectStatuses(run)},
			Storage:     jetstream.MemoryStorage,
			Retention:   jetstream.LimitsPolicy,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("status stream %s: %w", name, err)
	}
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("status stream %s: consumer: %w", name, err)
	}
	cc, err := c.Consume(func(m jetstream.Msg) { handle(m.Subject(), m.Data()) })
	if err != nil {
		return nil, fmt.Errorf("status stream %s: consume: %w", name, err)
	}
	return &statusStream{js: js, name: name, consume: cc, timeout: timeout}, nil
}

// stop stops handing messages over; the stream stays on the server.
func (s *statusStream) stop() { s.consume.Stop() }

// remove stops and deletes the stream.
func (s *statusStream) remove() error {
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.js.DeleteStream(ctx, s.name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("delete status stream %s: %w", s.name, err)
	}
	return nil
}
