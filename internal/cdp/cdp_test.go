package cdp

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPageReportsErrors opens, in a real headless Chromium, a page that
// logs a console error and throws, and one that does neither: the first
// must report both, the second nothing. It shows the browser tests would
// see a broken page. Skipped in -short mode and without Chromium.
func TestPageReportsErrors(t *testing.T) {
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if testing.Short() {
		t.Skip("starts a browser; run without -short")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Chromium at %s (set CHROMIUM): %v", path, err)
	}
	b, err := Launch(path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	page := func(body string) string {
		return "data:text/html," + url.PathEscape("<!DOCTYPE html><title>t</title><link rel=icon href=data:,><body>"+body)
	}
	p, err := b.NewPage(ctx, 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, page(`<script>console.error("broken plot"); null.x;</script>`)); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.Eval(ctx, "new Promise(r => setTimeout(() => r(1 + 1), 50))", &n); err != nil || n != 2 {
		t.Fatalf("Eval = %d, %v", n, err)
	}
	probs := strings.Join(p.Problems(), "\n")
	if !strings.Contains(probs, "console.error: broken plot") || !strings.Contains(probs, "exception:") {
		t.Errorf("problems of the broken page:\n%s", probs)
	}

	q, err := b.NewPage(ctx, 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Navigate(ctx, page(`<p>fine</p>`)); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "fine.png")
	if err := q.Screenshot(ctx, shot, 800, 2000); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(shot); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("screenshot: %d bytes, %v", len(data), err)
	}
	if ps := q.Problems(); len(ps) != 0 {
		t.Errorf("problems of a fine page: %v", ps)
	}
}
