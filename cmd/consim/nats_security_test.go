package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/node"
)

// TestNATSRefusesOpenServer: `consim nats` on every interface without a
// user, client certificates or --insecure is a usage error naming the
// options.
func TestNATSRefusesOpenServer(t *testing.T) {
	var out, errOut bytes.Buffer
	code := mainExit([]string{"nats", "--addr", "0.0.0.0", "--port", "0"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--insecure") || !strings.Contains(errOut.String(), "--password-file") {
		t.Fatalf("exit %d, stderr %q; want %d naming --password-file and --insecure", code, errOut.String(), exitUsage)
	}
}

// TestPasswordNeverInURL: a URL with a password is refused, and the
// error shows the URL redacted.
func TestPasswordNeverInURL(t *testing.T) {
	var out, errOut bytes.Buffer
	code := mainExit([]string{"node", "--nats", "nats://alice:hunter2@127.0.0.1:1", "--run-id", "r", "--id", "0", quickstart}, &out, &errOut)
	if code != exitUsage || strings.Contains(errOut.String(), "hunter2") || !strings.Contains(errOut.String(), "--password-file") {
		t.Fatalf("exit %d, stderr %q; want %d, no password, pointing to --password-file", code, errOut.String(), exitUsage)
	}
}

// TestSecurityFlags: the password comes from its file, and a child gets
// the same flags as paths, never the password.
func TestSecurityFlags(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := natsSecurity{user: "alice", passwordFile: pw}
	s.tls.CA = "ca.pem"
	var o node.NATSOptions
	if err := s.apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.User != "alice" || o.Password != "hunter2" || o.TLS.CA != "ca.pem" {
		t.Fatalf("options %+v", o)
	}
	args := strings.Join(s.args(), " ")
	if args != "--user alice --password-file "+pw+" --tls-ca ca.pem" || strings.Contains(args, "hunter2") {
		t.Fatalf("child args %q", args)
	}
	if err := (natsSecurity{user: "alice"}).apply(&o); err == nil {
		t.Fatal("--user without --password-file accepted")
	}
}
