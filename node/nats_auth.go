package node

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// Authorization on a nats-server that consim starts. Each role of a run
// has a user of its own whose publish permissions are exactly what the
// role may send, so a client cannot publish onto a run's subjects without
// a password, and agent i's user can publish only its own subjects: with
// the subject-to-sender check of the agents' connections (a frame on
// consim.<run>.a.<i> must name i as its sender), agent i cannot forge
// another agent's frames even though it holds the run key. On a server
// consim does not start, the frame MACs alone stand between the run and
// other clients of the server.
//
//	role         user           publish                         subscribe
//	agent i      agent-<i>      a.<i>, a.<i>.>, s.<i>, eval     a.>, r.>, ctl
//	all agents   agents         anything (see AgentsUser)       a.>, r.>, ctl
//	worker w     worker-<w>     r.<w>                           eval
//	coordinator  coordinator    ctl, claim (+ claim answers)    s.>, claim, _INBOX.>
//
// (subjects relative to consim.<run>.). "all agents" is the shared
// connection of a process that runs every agent (RunAll on a transport
// that owns its server).

// Where a process finds its NATS user (see NATSOptions.User).
const (
	// EnvNATSUser names the process's NATS user.
	EnvNATSUser = "CONSIM_NATS_USER"
	// EnvNATSPasswordFile names a file holding its password.
	EnvNATSPasswordFile = "CONSIM_NATS_PASSWORD_FILE"
)

// NATSUser is one user of a run on a nats-server that consim starts (see
// NATSServerOptions.Users).
type NATSUser struct {
	Name     string
	Password string
	// Publish and Subscribe are the subjects (wildcards allowed) the user
	// may publish to and subscribe to; a nil Publish allows every subject.
	Publish, Subscribe []string
	// Respond lets the user answer the requests it receives (on their
	// reply subjects), once each.
	Respond bool
}

// newPassword returns a random password.
func newPassword() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("node: NATS password: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// subjects returns consim.<run>.<s> for each s.
func runSubjects(run string, s ...string) []string {
	out := make([]string, len(s))
	for k, x := range s {
		out[k] = "consim." + run + "." + x
	}
	return out
}

// agentSubscribe is what an agents' connection subscribes to.
func agentSubscribe(run string) []string { return runSubjects(run, "a.>", "r.>", "ctl") }

// AgentUser returns the user of agent id of run, with a random password.
func AgentUser(run string, id int) (NATSUser, error) {
	pw, err := newPassword()
	i := strconv.Itoa(id)
	return NATSUser{Name: "agent-" + i, Password: pw,
		Publish: runSubjects(run, "a."+i, "a."+i+".>", "s."+i, "eval"), Subscribe: agentSubscribe(run)}, err
}

// AgentsUser returns the user of a process that runs every agent of run
// on a server of its own. It may publish anywhere: the process holds the
// coordinator's and the workers' users too, no other client can connect,
// and the server's cache of publish permissions holds 128 subjects, so
// checking the N agent subjects of a large run would cost a full check
// per message.
func AgentsUser(run string) (NATSUser, error) {
	pw, err := newPassword()
	return NATSUser{Name: "agents", Password: pw, Subscribe: agentSubscribe(run)}, err
}

// WorkerUser returns the user of oracle worker w of run.
func WorkerUser(run string, w int) (NATSUser, error) {
	pw, err := newPassword()
	return NATSUser{Name: "worker-" + strconv.Itoa(w), Password: pw,
		Publish: runSubjects(run, "r."+strconv.Itoa(w)), Subscribe: runSubjects(run, "eval")}, err
}

// workersUser returns the user every oracle worker of a process shares.
func workersUser(run string) (NATSUser, error) {
	pw, err := newPassword()
	return NATSUser{Name: "workers", Password: pw, Publish: runSubjects(run, "r.*"), Subscribe: runSubjects(run, "eval")}, err
}

// CoordinatorUser returns the user of the coordinator of run.
func CoordinatorUser(run string) (NATSUser, error) {
	pw, err := newPassword()
	return NATSUser{Name: "coordinator", Password: pw,
		Publish:   runSubjects(run, "ctl", "claim"),
		Subscribe: append(runSubjects(run, "s.>", "claim"), "_INBOX.>"), Respond: true}, err
}

// RunUsers returns the users of a run of n agents and w oracle workers
// in separate processes: agent-0..n-1, worker-0..w-1 and coordinator, each
// with a random password. Start the server with them
// (NATSServerOptions.Users) and hand each process its user and password
// by file or environment (EnvNATSUser, EnvNATSPasswordFile), never argv.
func RunUsers(run string, n, w int) ([]NATSUser, error) {
	if err := validRunID(run); err != nil {
		return nil, err
	}
	var users []NATSUser
	for i := range n {
		u, err := AgentUser(run, i)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	for k := range w {
		u, err := WorkerUser(run, k)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	u, err := CoordinatorUser(run)
	return append(users, u), err
}

// serverUsers converts users to the server's form.
func serverUsers(users []NATSUser) []*server.User {
	out := make([]*server.User, len(users))
	for k, u := range users {
		p := &server.Permissions{Subscribe: &server.SubjectPermission{Allow: append([]string(nil), u.Subscribe...)}}
		if u.Publish != nil {
			p.Publish = &server.SubjectPermission{Allow: append([]string(nil), u.Publish...)}
		}
		if u.Respond {
			p.Response = &server.ResponsePermission{MaxMsgs: 1}
		}
		out[k] = &server.User{Username: u.Name, Password: u.Password, Permissions: p}
	}
	return out
}

// WriteNATSPasswordFile writes password to a new file at path, readable
// by its owner only (mode 0600). An existing file is an error.
func WriteNATSPasswordFile(path, password string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("node: write NATS password: %w", err)
	}
	_, err = f.WriteString(password + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// resolveUser returns the user and password of a transport with options
// o: o.User and o.Password, else $CONSIM_NATS_USER and the file named by
// $CONSIM_NATS_PASSWORD_FILE; empty when none is set.
func resolveUser(o NATSOptions) (user, password string, err error) {
	if o.User != "" {
		return o.User, o.Password, nil
	}
	user = os.Getenv(EnvNATSUser)
	if user == "" {
		return "", "", nil
	}
	path := os.Getenv(EnvNATSPasswordFile)
	if path == "" {
		return "", "", fmt.Errorf("node: NATS transport: $%s is set but $%s is not", EnvNATSUser, EnvNATSPasswordFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("node: NATS transport: $%s: %w", EnvNATSPasswordFile, err)
	}
	return user, strings.TrimSpace(string(b)), nil
}
