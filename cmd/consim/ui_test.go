package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator/live"
)

// recordUI replaces uiStart for the test with one that counts the views
// started and, after starting the real one, fetches its /metrics.
func recordUI(t *testing.T) *[]string {
	t.Helper()
	var served []string
	orig := uiStart
	t.Cleanup(func() { uiStart = orig })
	uiStart = func(s *live.Server, addr string) (string, string, error) {
		url, warning, err := orig(s, addr)
		if err != nil {
			return url, warning, err
		}
		resp, err := http.Get(url + "metrics")
		if err != nil {
			t.Errorf("GET %smetrics: %v", url, err)
			return url, warning, nil
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		served = append(served, url)
		if !strings.Contains(string(b), "consim_run_info") {
			t.Errorf("%smetrics lacks consim_run_info:\n%s", url, b)
		}
		return url, warning, nil
	}
	return &served
}

// TestUIOnlyWhenAsked runs a short quickstart without --ui, which must
// serve nothing and print no URL, and with --ui 127.0.0.1:0, which must
// serve the live view while the run runs, print its URL and stop serving
// when the command ends.
func TestUIOnlyWhenAsked(t *testing.T) {
	served := recordUI(t)
	out := t.TempDir()
	args := []string{"run", "../../scenarios/quickstart.yaml", "--out", out, "--log-level", "warn", "--transport", "chan", "--set", "rounds=200"}
	code, stdout, stderr := consim(t, append(args, "--run-id", "plain")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(*served) != 0 || strings.Contains(stderr, "live view") {
		t.Fatalf("without --ui: served %v, stderr:\n%s", *served, stderr)
	}
	code, stdout, stderr = consim(t, append(args, "--run-id", "viewed", "--ui", "127.0.0.1:0")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(*served) != 1 || !strings.Contains(stderr, "live view of run viewed: "+(*served)[0]) {
		t.Fatalf("with --ui: served %v, stderr:\n%s", *served, stderr)
	}
	if _, err := http.Get((*served)[0]); err == nil {
		t.Error("the live view still answers after the command ended")
	}
}

// TestUIFlag checks that run, launch and coordinator take --ui and that
// a bad address is a usage error naming what is allowed.
func TestUIFlag(t *testing.T) {
	served := recordUI(t)
	for _, cmd := range []string{"run", "launch", "coordinator"} {
		code, stdout, _ := consim(t, cmd, "--help")
		if code != exitOK || !strings.Contains(stdout, "--ui ADDR") {
			t.Errorf("consim %s --help: exit %d, no --ui ADDR:\n%s", cmd, code, stdout)
		}
	}
	code, _, stderr := consim(t, "run", "../../scenarios/quickstart.yaml", "--out", t.TempDir(), "--ui", "localhost:http-alt")
	if code != exitUsage || !strings.Contains(stderr, "HOST:PORT") {
		t.Errorf("bad --ui: exit %d, stderr:\n%s", code, stderr)
	}
	if len(*served) != 0 {
		t.Errorf("served %v on a bad address", *served)
	}
}
