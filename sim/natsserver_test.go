package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/consim/consim/node"
)

// TestWriteRunUsers: the seeds, users.json and run.key are written with
// mode 0600 and read back; a non-empty directory and bad arguments are
// input errors naming the flag.
func TestWriteRunUsers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "creds")
	w, err := WriteRunUsers(dir, "r1", 3, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range w.Seeds {
		names = append(names, filepath.Base(p))
	}
	if got := strings.Join(names, " "); got != "agent-0.nk agent-1.nk agent-2.nk worker-0.nk coordinator.nk" {
		t.Errorf("seeds %s", got)
	}
	for _, p := range append([]string{w.Users, w.RunKey}, w.Seeds...) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v; want mode 0600", p, err)
		}
	}
	run, users, err := node.ReadNATSUsersFile(w.Users)
	if err != nil || run != "r1" || len(users) != 5 {
		t.Fatalf("users file: run %q, %d users, %v", run, len(users), err)
	}
	if coord := users[4]; coord.Name != "coordinator" || !strings.Contains(strings.Join(coord.Publish, " "), node.JetStreamAPI) {
		t.Errorf("coordinator %+v: want it allowed %s with jetstream", coord, node.JetStreamAPI)
	}
	if _, err := node.ReadRunKeyFile(w.RunKey); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		dir, run      string
		agents, works int
		want          string
	}{
		{dir, "r2", 1, 0, "not empty"},
		{filepath.Join(t.TempDir(), "x"), "", 1, 0, "--run-id ID is required"},
		{filepath.Join(t.TempDir(), "x"), "r", 0, 0, "--agents 0"},
		{filepath.Join(t.TempDir(), "x"), "r", 1, -1, "--workers -1"},
		{"", "r", 1, 0, "--dir DIR is required"},
		{filepath.Join(t.TempDir(), "x"), "a.b", 1, 0, "--run-id"},
	} {
		if _, err := WriteRunUsers(tc.dir, tc.run, tc.agents, tc.works, false); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WriteRunUsers(%q, %q, %d, %d) = %v; want an input error with %q", tc.dir, tc.run, tc.agents, tc.works, err, tc.want)
		}
	}
}

// TestServeNATS: a server with a run's users admits a user's nkey and
// names the run, and its temporary JetStream store is removed on Close;
// contradictory options are input errors.
func TestServeNATS(t *testing.T) {
	dir := t.TempDir()
	w, err := WriteRunUsers(filepath.Join(dir, "creds"), "r1", 1, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ServeNATS(NATSServerConfig{UsersFiles: []string{w.Users}, JetStream: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Runs) != 1 || srv.Runs[0] != "r1" || srv.tmp == "" {
		t.Errorf("runs %v, store %q", srv.Runs, srv.tmp)
	}
	opt, err := nats.NkeyOptionFromSeed(w.Seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(srv.ClientURL(), opt)
	if err != nil {
		t.Fatalf("agent-0's nkey refused: %v", err)
	}
	nc.Close()
	if _, err := nats.Connect(srv.ClientURL()); err == nil {
		t.Error("a client without a user admitted")
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(srv.tmp); !os.IsNotExist(err) {
		t.Errorf("temporary store %s left: %v", srv.tmp, err)
	}

	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    NATSServerConfig
		want string
	}{
		{NATSServerConfig{User: "alice"}, "give both or neither"},
		{NATSServerConfig{User: "alice", PasswordFile: pw, UsersFiles: []string{w.Users}}, "give one"},
		{NATSServerConfig{UsersFiles: []string{w.Users, w.Users}}, "a second users file of run r1"},
		{NATSServerConfig{StoreDir: dir}, "needs --jetstream"},
		{NATSServerConfig{Host: "0.0.0.0"}, "--insecure"},
		{NATSServerConfig{UsersFiles: []string{pw}}, "--users"},
	} {
		if srv, err := ServeNATS(tc.c); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			if err == nil {
				srv.Close()
			}
			t.Errorf("ServeNATS(%+v) = %v; want an input error with %q", tc.c, err, tc.want)
		}
	}
}
