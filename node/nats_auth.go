package node

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
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
// NATSServerOptions.Users). Its JSON form is an entry of a users file
// (WriteNATSUsersFile), which never holds a password.
type NATSUser struct {
	Name     string `json:"name"`
	Password string `json:"-"`
	// NKey, if set, is the user's public nkey: it authenticates by
	// signing the server's challenge with the seed (UseNKeys), and
	// Password is empty.
	NKey string `json:"nkey,omitempty"`
	// Publish and Subscribe are the subjects (wildcards allowed) the user
	// may publish to and subscribe to; a nil Publish allows every subject.
	Publish   []string `json:"publish"`
	Subscribe []string `json:"subscribe"`
	// Respond lets the user answer the requests it receives (on their
	// reply subjects), once each.
	Respond bool `json:"respond,omitempty"`
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

// serverUsers converts users to the server's forms: users with a
// password, and users with an nkey.
func serverUsers(users []NATSUser) ([]*server.User, []*server.NkeyUser) {
	var pw []*server.User
	var nk []*server.NkeyUser
	for _, u := range users {
		p := &server.Permissions{Subscribe: &server.SubjectPermission{Allow: append([]string(nil), u.Subscribe...)}}
		if u.Publish != nil {
			p.Publish = &server.SubjectPermission{Allow: append([]string(nil), u.Publish...)}
		}
		if u.Respond {
			p.Response = &server.ResponsePermission{MaxMsgs: 1}
		}
		if u.NKey != "" {
			nk = append(nk, &server.NkeyUser{Nkey: u.NKey, Permissions: p})
			continue
		}
		pw = append(pw, &server.User{Username: u.Name, Password: u.Password, Permissions: p})
	}
	return pw, nk
}

// JetStreamAPI is the subject a coordinator's user must also publish on
// to keep the run's statuses in a stream (NATSOptions.StatusStream).
const JetStreamAPI = "$JS.API.>"

// UseNKeys gives each of users a fresh nkey instead of its password: it
// sets NKey to the public key, clears Password and returns the seeds
// (the private keys) by user name. Hand each process its seed in a file
// (WriteNKeySeedFile, NATSOptions.NKeyFile) and the server the users
// (WriteNATSUsersFile): the server then holds no secret at all.
func UseNKeys(users []NATSUser) (map[string][]byte, error) {
	seeds := make(map[string][]byte, len(users))
	for k := range users {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return nil, fmt.Errorf("node: nkey of %s: %w", users[k].Name, err)
		}
		seed, err := kp.Seed()
		if err != nil {
			return nil, fmt.Errorf("node: nkey of %s: %w", users[k].Name, err)
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("node: nkey of %s: %w", users[k].Name, err)
		}
		users[k].NKey, users[k].Password = pub, ""
		seeds[users[k].Name] = seed
	}
	return seeds, nil
}

// WriteNKeySeedFile writes an nkey seed to a new file at path, readable by
// its owner only (mode 0600): the file NATSOptions.NKeyFile (consim
// --nkey) reads. An existing file is an error.
func WriteNKeySeedFile(path string, seed []byte) error {
	return writeSecret(path, string(seed))
}

// usersFile is the JSON document of a users file.
type usersFile struct {
	// Run is the run id the users' permissions are for.
	Run   string     `json:"run"`
	Users []NATSUser `json:"users"`
}

// WriteNATSUsersFile writes the nkey users of run to a new file at path
// (mode 0600), for a server to load (ReadNATSUsersFile, consim nats
// --users). It holds names, public keys and permissions, no secret; a
// user with a password is an error.
func WriteNATSUsersFile(path, run string, users []NATSUser) error {
	for _, u := range users {
		if u.NKey == "" {
			return fmt.Errorf("node: users file: user %s has no nkey (see UseNKeys)", u.Name)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // subjects end in ">"
	enc.SetIndent("", "  ")
	if err := enc.Encode(usersFile{Run: run, Users: users}); err != nil {
		return fmt.Errorf("node: users file: %w", err)
	}
	return writeSecret(path, strings.TrimSuffix(b.String(), "\n"))
}

// ReadNATSUsersFile reads a users file written by WriteNATSUsersFile and
// returns its run id and users, checking that each user has a name, a
// valid public user nkey and at least one subscribe permission.
func ReadNATSUsersFile(path string) (run string, users []NATSUser, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("node: users file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f usersFile
	if err := dec.Decode(&f); err != nil {
		return "", nil, fmt.Errorf("node: users file %s: %w", path, err)
	}
	if err := validRunID(f.Run); err != nil {
		return "", nil, fmt.Errorf("node: users file %s: %w", path, err)
	}
	if len(f.Users) == 0 {
		return "", nil, fmt.Errorf("node: users file %s: no users", path)
	}
	for k, u := range f.Users {
		switch {
		case u.Name == "":
			return "", nil, fmt.Errorf("node: users file %s: user %d has no name", path, k)
		case !nkeys.IsValidPublicUserKey(u.NKey):
			return "", nil, fmt.Errorf("node: users file %s: user %s: nkey %q is not a public user key (U...)", path, u.Name, u.NKey)
		case len(u.Subscribe) == 0:
			return "", nil, fmt.Errorf("node: users file %s: user %s may subscribe to nothing", path, u.Name)
		}
	}
	return f.Run, f.Users, nil
}

// WriteNATSPasswordFile writes password to a new file at path, readable
// by its owner only (mode 0600). An existing file is an error.
func WriteNATSPasswordFile(path, password string) error { return writeSecret(path, password) }

// writeSecret writes s and a newline to a new file at path, readable by
// its owner only (mode 0600). An existing file is an error.
func writeSecret(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("node: write %s: %w", filepath.Base(path), err)
	}
	_, err = f.WriteString(s + "\n")
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
