package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/node"
)

// NATSServerConfig configures a standalone NATS server, the bus of a run
// whose agents and coordinator run on several hosts (consim nats).
type NATSServerConfig struct {
	// Host is the interface to listen on (default 127.0.0.1); Port the TCP
	// port, 0 picking a free one.
	Host string
	Port int
	// User, with the password in the file PasswordFile, is the one user
	// clients authenticate as, allowed every subject. Give both or neither,
	// and not with UsersFiles.
	User, PasswordFile string
	// UsersFiles are users files written by WriteRunUsers, one per run:
	// the server admits only their users, each with its role's
	// permissions.
	UsersFiles []string
	// Insecure allows serving other hosts without authentication
	// (node.NATSServerOptions.Insecure).
	Insecure bool
	// TLS serves TLS with TLS.Cert and TLS.Key, and with TLS.CA requires
	// client certificates that CA signed.
	TLS node.TLSFiles
	// JetStream keeps each run's statuses in a stream while its
	// coordinator is down; StoreDir is JetStream's own directory (only
	// with JetStream; default a temporary one, removed by Close).
	JetStream bool
	StoreDir  string
}

// NATSServer is a running standalone NATS server (ServeNATS).
type NATSServer struct {
	*server.Server
	// Runs are the run ids of the users files it admits, in their order.
	Runs []string
	tmp  string
}

// Close shuts the server down, waits for it, and removes its temporary
// JetStream store.
func (s *NATSServer) Close() error {
	s.Shutdown()
	s.WaitForShutdown()
	if s.tmp != "" {
		return os.RemoveAll(s.tmp)
	}
	return nil
}

// ServeNATS starts the NATS server c describes; the caller closes it.
// Errors of c (user without password file, a second users file of one
// run, a store without JetStream, an open server on a public interface)
// wrap ErrInput.
func ServeNATS(c NATSServerConfig) (*NATSServer, error) {
	port := c.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	so := node.NATSServerOptions{Name: "consim", Host: c.Host, Port: port, Insecure: c.Insecure, TLS: c.TLS}
	if (c.User == "") != (c.PasswordFile == "") {
		return nil, inputError{fmt.Errorf("--user %q and --password-file %q: give both or neither", c.User, c.PasswordFile)}
	}
	if c.User != "" && len(c.UsersFiles) > 0 {
		return nil, inputError{fmt.Errorf("--user %q and --users: give one (a user allowed every subject would let any host publish as any agent)", c.User)}
	}
	if c.User != "" {
		pw, err := node.ReadSecretFile(c.PasswordFile)
		if err != nil {
			return nil, inputError{fmt.Errorf("--password-file: %w", err)}
		}
		so.Users = []node.NATSUser{{Name: c.User, Password: pw, Subscribe: []string{">"}}}
	}
	var runs []string
	for _, path := range c.UsersFiles {
		run, users, err := node.ReadNATSUsersFile(path)
		if err != nil {
			return nil, inputError{fmt.Errorf("--users: %w", err)}
		}
		if slices.Contains(runs, run) {
			return nil, inputError{fmt.Errorf("--users %s: a second users file of run %s", path, run)}
		}
		runs = append(runs, run)
		so.Users = append(so.Users, users...)
	}
	if c.StoreDir != "" && !c.JetStream {
		return nil, inputError{fmt.Errorf("--store %s: needs --jetstream", c.StoreDir)}
	}
	var tmp string
	if c.JetStream {
		so.JetStream, so.StoreDir = true, c.StoreDir
		if c.StoreDir == "" {
			dir, err := os.MkdirTemp("", "consim-jetstream-")
			if err != nil {
				return nil, fmt.Errorf("JetStream store: %w", err)
			}
			tmp, so.StoreDir = dir, dir
		}
	}
	srv, err := node.StartNATSServer(so)
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		if errors.Is(err, node.ErrInsecureListen) {
			err = inputError{err}
		}
		return nil, err
	}
	return &NATSServer{Server: srv, Runs: runs, tmp: tmp}, nil
}

// RunUsersFiles are the files WriteRunUsers wrote.
type RunUsersFiles struct {
	// Users is the users file for the server (NATSServerConfig.UsersFiles).
	Users string
	// RunKey is the run key every process of the run reads
	// (node.EnvRunKeyFile).
	RunKey string
	// Seeds are the nkey seed files (node.NATSOptions.NKeyFile), one per
	// user: agent-0.nk .. agent-<agents-1>.nk, worker-0.nk .., then
	// coordinator.nk.
	Seeds []string
}

// WriteRunUsers writes the users of run runID to dir, which must be new
// or empty: one user per agent process, per oracle worker and for the
// coordinator, each with an nkey of its own and its role's permissions
// (node.RunUsers; with jetstream the coordinator may also use
// node.JetStreamAPI). It writes each seed (<user>.nk), users.json and a
// fresh run key (run.key), all mode 0600. Errors of the arguments wrap
// ErrInput.
func WriteRunUsers(dir, runID string, agents, workers int, jetstream bool) (*RunUsersFiles, error) {
	switch {
	case runID == "":
		return nil, inputError{errors.New("--run-id ID is required")}
	case agents < 1:
		return nil, inputError{fmt.Errorf("--agents %d: want the number of agent processes, at least 1", agents)}
	case workers < 0:
		return nil, inputError{fmt.Errorf("--workers %d: must not be negative", workers)}
	case dir == "":
		return nil, inputError{errors.New("--dir DIR is required")}
	}
	users, err := node.RunUsers(runID, agents, workers)
	if err != nil {
		return nil, inputError{fmt.Errorf("--run-id: %w", err)}
	}
	if jetstream {
		coord := &users[len(users)-1] // RunUsers ends with the coordinator
		coord.Publish = append(coord.Publish, node.JetStreamAPI)
	}
	seeds, err := node.UseNKeys(users)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, inputError{fmt.Errorf("--dir: %w", err)}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		if err == nil {
			err = errors.New("not empty: the seeds of another run may be there")
		}
		return nil, inputError{fmt.Errorf("--dir %s: %w", dir, err)}
	}
	out := &RunUsersFiles{Users: filepath.Join(dir, "users.json"), RunKey: filepath.Join(dir, "run.key")}
	for _, u := range users {
		path := filepath.Join(dir, u.Name+".nk")
		if err := node.WriteNKeySeedFile(path, seeds[u.Name]); err != nil {
			return nil, err
		}
		out.Seeds = append(out.Seeds, path)
	}
	if err := node.WriteNATSUsersFile(out.Users, runID, users); err != nil {
		return nil, err
	}
	// The run key every process of the run seals its messages with.
	key, err := node.NewRunKey()
	if err != nil {
		return nil, err
	}
	if err := node.WriteRunKeyFile(out.RunKey, key); err != nil {
		return nil, err
	}
	return out, nil
}
