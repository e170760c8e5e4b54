package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactURL: every password of a URL list is redacted, every other
// part is kept as given, and the user name stays.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://alice:hunter2@h:4222":    "nats://alice:xxxxx@h:4222",
		"nats://h:4222":                  "nats://h:4222",
		" nats://h:1, tls://bob:pw@h2:2": " nats://h:1,tls://bob:xxxxx@h2:2",
		"nats://alice@h:4222":            "nats://alice@h:4222",
		"nats://a:%zz@h":                 "nats://a:%zz@h", // unparsable: as given
		"":                               "",
		"tls://a:1@h:1,tls://b:2@h:2,tls://c:3@h:3": "tls://a:xxxxx@h:1,tls://b:xxxxx@h:2,tls://c:xxxxx@h:3",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadSecretFile: the secret is the file's trimmed content; an empty
// or missing file is an error naming it.
func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if s, err := ReadSecretFile(write("pw", "  hunter2\n")); err != nil || s != "hunter2" {
		t.Errorf("got %q, %v; want hunter2", s, err)
	}
	empty := write("empty", " \n")
	if _, err := ReadSecretFile(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v; want an error naming %s", err, empty)
	}
	missing := filepath.Join(dir, "none")
	if _, err := ReadSecretFile(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v; want an error naming %s", err, missing)
	}
}
