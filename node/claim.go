package node

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrRunClaimed is wrapped by the error of an observer whose run id is
// already held by another observer on the same NATS server: two runs with
// one id would read each other's frames.
var ErrRunClaimed = errors.New("run id already in use on this NATS server")

// claimWindow is how long a claim waits for other holders to answer after
// its own answer came back, at least; it waits 4 round trips if longer.
const claimWindow = 20 * time.Millisecond

// claimPrefix starts the payload of claim requests and answers.
const claimPrefix = "consim-claim "

// claim takes run id run on nc's server for as long as nc lives. The
// holder of a claim answers every request on SubjectClaim(run) with its
// nonce. To claim, a connection first subscribes as a holder, then asks:
// it hears its own answer and, within claimWindow (or 4 round trips)
// after it, the answer of every other holder. Any other answer refuses
// the claim. Two connections that claim at once both hear each other, so
// both are refused rather than both admitted. Claims are not
// authenticated: any client of the server may hold a run id, which
// refuses the run rather than corrupting it.
func claim(nc *nats.Conn, run string, timeout time.Duration) error {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return fmt.Errorf("claim run %s: %w", run, err)
	}
	nonce := []byte(claimPrefix + hex.EncodeToString(raw[:]))
	subject := SubjectClaim(run)
	holder, err := nc.Subscribe(subject, func(m *nats.Msg) {
		if m.Reply != "" {
			_ = m.Respond(nonce)
		}
	})
	if err != nil {
		return fmt.Errorf("claim run %s: %w", run, err)
	}
	answers := make(chan []byte, 64)
	inbox := nc.NewRespInbox()
	sub, err := nc.Subscribe(inbox, func(m *nats.Msg) {
		select {
		case answers <- m.Data:
		default:
		}
	})
	if err != nil {
		holder.Unsubscribe()
		return fmt.Errorf("claim run %s: %w", run, err)
	}
	defer sub.Unsubscribe()
	fail := func(err error) error {
		holder.Unsubscribe()
		return fmt.Errorf("claim run %s: %w", run, err)
	}
	if err := nc.FlushTimeout(timeout); err != nil {
		return fail(err)
	}
	asked := time.Now()
	if err := nc.PublishRequest(subject, inbox, nonce); err != nil {
		return fail(err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var window <-chan time.Time
	for {
		select {
		case a := <-answers:
			if !bytes.Equal(a, nonce) {
				holder.Unsubscribe()
				return fmt.Errorf("%w: run %s is claimed by another coordinator (answer %q): pick another run id or stop the other run", ErrRunClaimed, run, a)
			}
			if window == nil {
				window = time.After(max(claimWindow, 4*time.Since(asked)))
			}
		case <-window:
			return nil
		case <-deadline.C:
			return fail(fmt.Errorf("no answer to the claim within %v", timeout))
		}
	}
}
