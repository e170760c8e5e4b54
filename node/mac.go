package node

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"
	"sync"
)

// Integrity of the frames on NATS. Every message a consim process
// publishes on a run's subjects (agent frames, eval requests and results,
// statuses, controls) is the frame followed by
//
//	MAC = HMAC-SHA256(K, "consim" || v || class || run || 0x00 || frame)
//
// where K is the run key, v the byte FrameVersion, class one byte naming
// the subject family (macAgent, ...) and run the run id. A message whose
// MAC does not verify is dropped and counted by subject
// (EndpointStats.Refused); it never reaches a round loop or the
// coordinator. The class binds a frame to its subject family (a status
// replayed as a control fails) and run binds it to the run, so frames of
// another run with the same key fail too.
//
// A transport whose embedded server listens on no port and admits only
// the run's own roles (NATSOptions.InProcess) seals nothing: every client
// of that server is a connection the transport made in its own process,
// so there is nobody a MAC would keep out, and its messages are the bare
// frames (see plainMacer).

// MACLen is the length of the MAC that ends every NATS message.
const MACLen = sha256.Size

// Subject families, the class byte of the MAC.
const (
	macAgent   byte = 'a' // agent frames, consim.<run>.a.<id>
	macResult  byte = 'r' // eval results and failures, consim.<run>.r.<w>
	macEval    byte = 'e' // eval requests, consim.<run>.eval
	macStatus  byte = 's' // statuses, consim.<run>.s.<id>
	macControl byte = 'c' // controls, consim.<run>.ctl
)

// Where a process finds the run key (see NATSOptions.Key).
const (
	// EnvRunKeyFile names a file holding the run key in hex (see
	// WriteRunKeyFile). It is read when NATSOptions.Key is empty.
	EnvRunKeyFile = "CONSIM_RUN_KEY_FILE"
	// EnvRunKey holds the run key in hex; EnvRunKeyFile takes precedence.
	EnvRunKey = "CONSIM_RUN_KEY"
)

// RunKeyLen is the length of the keys NewRunKey makes; keys shorter than
// MinRunKeyLen are refused.
const (
	RunKeyLen    = 32
	MinRunKeyLen = 16
)

// NewRunKey returns a fresh random run key of RunKeyLen bytes.
func NewRunKey() ([]byte, error) {
	k := make([]byte, RunKeyLen)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("node: new run key: %w", err)
	}
	return k, nil
}

// WriteRunKeyFile writes key in hex to a new file at path, readable by
// its owner only (mode 0600). An existing file is an error.
func WriteRunKeyFile(path string, key []byte) error {
	if len(key) < MinRunKeyLen {
		return fmt.Errorf("node: run key of %d bytes: need at least %d", len(key), MinRunKeyLen)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("node: write run key: %w", err)
	}
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	return errors.Join(err, f.Close())
}

// ReadRunKeyFile reads a run key written by WriteRunKeyFile: hex digits,
// surrounding white space ignored.
func ReadRunKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("node: read run key: %w", err)
	}
	k, err := parseRunKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("node: run key file %s: %w", path, err)
	}
	return k, nil
}

// parseRunKey decodes a hex run key.
func parseRunKey(s string) ([]byte, error) {
	k, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("not a hex key: %w", err)
	}
	if len(k) < MinRunKeyLen {
		return nil, fmt.Errorf("key of %d bytes: need at least %d", len(k), MinRunKeyLen)
	}
	return k, nil
}

// DeriveRunKey returns the key a run uses when it is given none and
// cannot make one (see NATSOptions.Key): SHA-256 of a fixed label and the
// run id. Anyone who knows the run id knows it, so it detects corruption
// and frames of other runs, not forgery.
func DeriveRunKey(run string) []byte {
	s := sha256.Sum256([]byte("consim run key derived from the run id\x00" + run))
	return s[:]
}

// keySource says where a transport's run key came from.
type keySource string

const (
	keyGiven     keySource = "options"
	keyFile      keySource = EnvRunKeyFile
	keyEnv       keySource = EnvRunKey
	keyGenerated keySource = "generated"
	keyDerived   keySource = "derived from the run id"
)

// resolveKey returns the run key of a transport with options o: o.Key,
// else the key of the file named by $CONSIM_RUN_KEY_FILE, else
// $CONSIM_RUN_KEY, else a fresh random key when the transport owns its
// server (no process outside can join), else DeriveRunKey.
func resolveKey(o NATSOptions) ([]byte, keySource, error) {
	if len(o.Key) > 0 {
		if len(o.Key) < MinRunKeyLen {
			return nil, "", fmt.Errorf("node: NATS transport: run key of %d bytes: need at least %d", len(o.Key), MinRunKeyLen)
		}
		return o.Key, keyGiven, nil
	}
	if path := os.Getenv(EnvRunKeyFile); path != "" {
		k, err := ReadRunKeyFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("node: NATS transport: $%s: %w", EnvRunKeyFile, err)
		}
		return k, keyFile, nil
	}
	if s := os.Getenv(EnvRunKey); s != "" {
		k, err := parseRunKey(s)
		if err != nil {
			return nil, "", fmt.Errorf("node: NATS transport: $%s: %w", EnvRunKey, err)
		}
		return k, keyEnv, nil
	}
	if o.URL == "" {
		k, err := NewRunKey()
		return k, keyGenerated, err
	}
	return DeriveRunKey(o.RunID), keyDerived, nil
}

// macer seals and opens the messages of one run.
type macer struct {
	// off: messages are the bare frames (see plainMacer).
	off    bool
	key    []byte
	prefix []byte // "consim", version; the class and run follow
	run    []byte
	pool   sync.Pool // *sealer
}

// sealer is one goroutine's HMAC state and message buffer.
type sealer struct {
	h   hash.Hash
	buf []byte
	sum [MACLen]byte
}

func newMacer(key []byte, run string) *macer {
	m := &macer{key: append([]byte(nil), key...), prefix: []byte{'c', 'o', 'n', 's', 'i', 'm', FrameVersion}, run: append([]byte(run), 0)}
	m.pool.New = func() any { return &sealer{h: hmac.New(sha256.New, m.key)} }
	return m
}

// plainMacer returns the macer of a run whose messages carry no MAC: seal
// publishes the frame as it is and open accepts every message.
func plainMacer() *macer { return &macer{off: true} }

// tagLen is the length of the MAC that ends each message: MACLen, or 0
// for a plain macer.
func (m *macer) tagLen() int {
	if m.off {
		return 0
	}
	return MACLen
}

// mac computes the MAC of frame in class into s.sum.
func (m *macer) mac(s *sealer, class byte, frame []byte) []byte {
	s.h.Reset()
	s.h.Write(m.prefix)
	s.h.Write([]byte{class})
	s.h.Write(m.run)
	s.h.Write(frame)
	return s.h.Sum(s.sum[:0])
}

// seal calls publish with frame followed by its MAC in class; the
// message is valid during the call only.
func (m *macer) seal(class byte, frame []byte, publish func(msg []byte) error) error {
	if m.off {
		return publish(frame)
	}
	s := m.pool.Get().(*sealer)
	defer m.pool.Put(s)
	s.buf = append(append(s.buf[:0], frame...), m.mac(s, class, frame)...)
	err := publish(s.buf)
	if cap(s.buf) > 1<<20 {
		s.buf = nil // do not pool the buffer of a huge frame
	}
	return err
}

// open verifies the MAC of msg in class and returns the frame it ends;
// ok is false when it does not verify.
func (m *macer) open(class byte, msg []byte) (frame []byte, ok bool) {
	if m.off {
		return msg, true
	}
	if len(msg) < MACLen {
		return nil, false
	}
	frame, tag := msg[:len(msg)-MACLen], msg[len(msg)-MACLen:]
	s := m.pool.Get().(*sealer)
	ok = hmac.Equal(m.mac(s, class, frame), tag)
	m.pool.Put(s)
	return frame, ok
}
