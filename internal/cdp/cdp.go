// Package cdp drives a headless Chromium through the Chrome DevTools
// Protocol over a pipe (--remote-debugging-pipe: the browser reads
// commands on its file descriptor 3 and writes replies and events on 4,
// each a JSON message ended by a NUL byte), for the browser tests of
// consim's pages. It knows the few commands those need: open a page,
// load a URL, evaluate a script, take a screenshot, and collect what the
// page reports as an error (console errors, uncaught exceptions, failed
// loads).
//
// cdp imports only the standard library; nothing in consim's runtime
// imports it.
package cdp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Flags are the command-line flags every Chromium of these tests runs
// with: headless, no sandbox (tests run as root in CI), no GPU, and none
// of the background connections a machine without a network refuses.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
	"--remote-debugging-pipe",
}

// Browser is one Chromium process.
type Browser struct {
	cmd     *exec.Cmd
	out     io.WriteCloser // its fd 3
	profile string         // the fresh --user-data-dir, removed on Close

	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	pages   map[string]*Page // by session id
	readErr error
	done    chan struct{} // closed when the reader stops
}

// reply is a command's answer.
type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// message is anything the browser sends.
type message struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	reply
}

// Launch starts the Chromium at path with Flags, a new empty profile
// directory and extra flags; stderr, if not nil, receives the browser's
// own log.
func Launch(path string, stderr io.Writer, extra ...string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "consim-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium profile: %w", err)
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := append(append(append([]string{}, Flags...), "--user-data-dir="+profile), extra...)
	cmd := exec.Command(path, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	cmdR.Close()
	evW.Close()
	b := &Browser{cmd: cmd, out: cmdW, profile: profile, pending: make(map[int]chan reply),
		pages: make(map[string]*Page), done: make(chan struct{})}
	go b.read(evR)
	return b, nil
}

// read dispatches the browser's messages until its pipe closes.
func (b *Browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		data, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("chromium closed its pipe: %w", err)
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(data[:len(data)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m.reply
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m.Method, m.Params)
		}
		b.mu.Unlock()
	}
}

// call sends method with params to the session (empty: the browser) and
// decodes the result into out (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err == nil {
		_, err = b.out.Write(append(data, 0))
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, b.readErr)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	}
}

// Close closes the browser, waits for its process and removes its
// profile.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.out.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		err = <-exited
	}
	<-b.done
	os.RemoveAll(b.profile)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // killed or closed: the tests' outcome is what the pages said
	}
	return err
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string

	// guarded by b.mu
	problems []string
	loaded   chan struct{}
}

// NewPage opens a blank tab with a width x height viewport.
func (b *Browser) NewPage(ctx context.Context, width, height int) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.call(ctx, p.session, m, nil, nil); err != nil {
			return nil, err
		}
	}
	return p, p.Resize(ctx, width, height)
}

// Resize sets the viewport.
func (p *Page) Resize(ctx context.Context, width, height int) error {
	return p.b.call(ctx, p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// event records what the page reports: console errors and assertions,
// uncaught exceptions, log entries of level error. b.mu is held.
func (p *Page) event(method string, params json.RawMessage) {
	switch method {
	case "Page.loadEventFired":
		if p.loaded != nil {
			close(p.loaded)
			p.loaded = nil
		}
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(params, &e) == nil && (e.Type == "error" || e.Type == "assert") {
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, fmt.Sprint(a.Value))
				}
			}
			p.problems = append(p.problems, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &e) == nil {
			p.problems = append(p.problems, "exception: "+e.Details.Text+" "+e.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(params, &e) == nil && e.Entry.Level == "error" {
			p.problems = append(p.problems, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	}
}

// Problems returns what the page has reported as errors so far.
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) error {
	loaded := make(chan struct{})
	p.b.mu.Lock()
	p.loaded = loaded
	p.b.mu.Unlock()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("navigate to %s: no load event: %w", url, ctx.Err())
	}
}

// Eval evaluates the JavaScript expression expr in the page (awaiting it
// when it is a promise) and decodes its JSON value into out, when not nil.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("evaluate %q: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("evaluate %q: no value", expr)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot writes a PNG of the whole page, grown to its content's
// height up to maxHeight pixels, to path.
func (p *Page) Screenshot(ctx context.Context, path string, width, maxHeight int) error {
	var h int
	if err := p.Eval(ctx, "document.documentElement.scrollHeight", &h); err != nil {
		return err
	}
	h = max(1, min(h, maxHeight))
	if err := p.Resize(ctx, width, h); err != nil {
		return err
	}
	// Let the page lay itself out at the new size.
	if err := p.Eval(ctx, "new Promise(r => requestAnimationFrame(() => setTimeout(r, 300)))", nil); err != nil {
		return err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.b.call(ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return os.WriteFile(path, png, 0o644)
}
