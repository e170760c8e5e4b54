package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/consim/consim/node"
)

// TestCheckNATSURL: a URL, or one of a list, carrying a user or password
// is an input error that shows it redacted and names the flags to use.
func TestCheckNATSURL(t *testing.T) {
	for _, ok := range []string{"", "nats://127.0.0.1:4222", "nats://h:1,tls://h2:2"} {
		if err := CheckNATSURL(ok); err != nil {
			t.Errorf("CheckNATSURL(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"nats://alice:hunter2@h:4222", "nats://h:1, tls://alice:hunter2@h2:2", "nats://alice@h:1"} {
		err := CheckNATSURL(bad)
		if !errors.Is(err, ErrInput) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "--password-file") {
			t.Errorf("CheckNATSURL(%q) = %v; want an input error without the password, naming --password-file", bad, err)
		}
	}
}

// TestProbeNATS: an empty URL is not probed, a server that answers
// passes, and one that cannot be reached (or a URL with a password) is
// an input error naming the URL.
func TestProbeNATS(t *testing.T) {
	if err := ProbeNATS(""); err != nil {
		t.Fatalf("empty URL: %v", err)
	}
	srv, err := node.StartNATSServer(node.NATSServerOptions{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	url := srv.ClientURL()
	if err := ProbeNATS(url); err != nil {
		t.Errorf("ProbeNATS(%s): %v", url, err)
	}
	srv.Shutdown()
	srv.WaitForShutdown()
	if err := ProbeNATS(url); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "--nats "+url) {
		t.Errorf("ProbeNATS(%s) of a stopped server = %v; want an input error naming the URL", url, err)
	}
	if err := ProbeNATS("nats://a:hunter2@127.0.0.1:1"); !errors.Is(err, ErrInput) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("URL with a password: %v", err)
	}
}
