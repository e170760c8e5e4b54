package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
)

// Info names the run a Server shows.
type Info struct {
	RunID string
	// Scenario is the scenario's name.
	Scenario string
	// Agents and Rounds are the run's agents and planned rounds.
	Agents, Rounds int
}

// MaxHistory bounds the rows a Server keeps for pages that connect late:
// past it, every other kept row is dropped and from then on only every
// second (then fourth, ...) row is kept, so a page that connects late
// sees the whole run at a coarser step. A page that stays connected gets
// every row.
const MaxHistory = 20000

// subscriberBuffer is how many events a slow page may lag behind before
// its stream is closed (its browser reconnects and starts over).
const subscriberBuffer = 1024

// keepAlive is the period of the comment lines that keep an idle event
// stream open through proxies.
const keepAlive = 15 * time.Second

// event is one server-sent event.
type event struct {
	name string
	data []byte
}

// Server is the live view of one run. Observe and End may be called
// from any goroutine; the handlers serve concurrently.
type Server struct {
	info    Info
	metrics *Metrics
	reg     *prometheus.Registry
	mux     *http.ServeMux

	mu      sync.Mutex
	history [][]byte // metrics lines kept, every stride-th
	stride  int
	seen    int // rows observed
	summary []byte
	end     []byte // the end event's data once the run has ended
	subs    map[chan event]struct{}
	closed  bool

	http *http.Server
	ln   net.Listener
}

// New returns the Server of the run info; it serves nothing until
// handed to an http.Server (see Handler, Start).
func New(info Info) *Server {
	s := &Server{info: info, stride: 1, subs: make(map[chan event]struct{})}
	s.metrics = newMetrics(info)
	s.reg = prometheus.NewRegistry()
	s.reg.MustRegister(s.metrics, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.page)
	s.mux.HandleFunc("GET /events", s.events)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	s.summary = s.summaryOf(nil, nil)
	return s
}

// Handler serves the page, /events and /metrics.
func (s *Server) Handler() http.Handler { return s.mux }

// Observe records the row p describes and pushes it to every connected
// page; it is a coordinator.Config.Progress callback and returns at once
// (a page that cannot keep up is disconnected, not waited for). On a nil
// Server it does nothing.
func (s *Server) Observe(p coordinator.Progress) {
	if s == nil {
		return
	}
	row := p.Row()
	line, err := row.MarshalJSON()
	if err != nil { // Row.MarshalJSON cannot fail; keep the view consistent if it ever does
		return
	}
	s.metrics.observe(p)
	summary := s.summaryOf(&p, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen++
	s.keep(line)
	s.summary = summary
	s.broadcast(event{"row", line})
	s.broadcast(event{"summary", summary})
}

// keep adds line to the history, thinning it past MaxHistory.
func (s *Server) keep(line []byte) {
	if (s.seen-1)%s.stride != 0 {
		return
	}
	s.history = append(s.history, line)
	if len(s.history) < MaxHistory {
		return
	}
	kept := s.history[:0]
	for k := 0; k < len(s.history); k += 2 {
		kept = append(kept, s.history[k])
	}
	clear(s.history[len(kept):])
	s.history = kept
	s.stride *= 2
}

// Tee returns a Progress callback that calls Observe, then next (when
// not nil); on a nil Server it returns next.
func (s *Server) Tee(next func(coordinator.Progress)) func(coordinator.Progress) {
	if s == nil {
		return next
	}
	return func(p coordinator.Progress) {
		s.Observe(p)
		if next != nil {
			next(p)
		}
	}
}

// End records the run's outcome and sends it to every page as the end
// event; sum may be nil when the run failed before it had a summary, err
// is the run's error. On a nil Server it does nothing.
func (s *Server) End(sum *coordinator.Summary, err error) {
	if s == nil {
		return
	}
	s.metrics.end(sum)
	data := s.summaryOf(nil, &ending{sum, err})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end = data
	s.broadcast(event{"end", data})
}

// broadcast sends e to every subscriber, closing those whose buffer is
// full. s.mu is held.
func (s *Server) broadcast(e event) {
	for ch := range s.subs {
		select {
		case ch <- e:
		default:
			delete(s.subs, ch)
			close(ch)
		}
	}
}

// page serves the live page.
func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	title := "Live: run " + s.info.RunID
	if err := report.LiveHTML(&b, title, "events"); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

// events streams the run to one page: hello, the rows kept so far, the
// latest summary, the end if the run has ended, then each new event.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "the live view is closed", http.StatusServiceUnavailable)
		return
	}
	history := s.history[:len(s.history):len(s.history)]
	summary, end := s.summary, s.end
	var ch chan event
	if end == nil {
		ch = make(chan event, subscriberBuffer)
		s.subs[ch] = struct{}{}
	}
	hello, _ := json.Marshal(struct {
		RunID  string `json:"run_id"`
		Rows   int    `json:"rows"`
		Stride int    `json:"stride"`
	}{s.info.RunID, s.seen, s.stride})
	s.mu.Unlock()
	defer s.unsubscribe(ch)

	w.WriteHeader(http.StatusOK)
	bw := &eventWriter{w: w}
	bw.write(event{"hello", hello})
	for _, line := range history {
		bw.write(event{"row", line})
	}
	bw.write(event{"summary", summary})
	if end != nil {
		bw.write(event{"end", end})
	}
	if bw.err != nil || rc.Flush() != nil || ch == nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			bw.comment()
		case e, ok := <-ch:
			if !ok {
				return
			}
			bw.write(e)
			for more := true; more; { // write what is queued, then flush once
				select {
				case e, ok = <-ch:
					if !ok {
						_ = rc.Flush()
						return
					}
					bw.write(e)
				default:
					more = false
				}
			}
		}
		if bw.err != nil || rc.Flush() != nil {
			return
		}
	}
}

// unsubscribe removes ch, unless a broadcast has already closed it.
func (s *Server) unsubscribe(ch chan event) {
	if ch == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.subs[ch]; ok {
		delete(s.subs, ch)
		close(ch)
	}
}

// eventWriter writes server-sent events and keeps the first error.
type eventWriter struct {
	w   http.ResponseWriter
	err error
}

func (e *eventWriter) write(ev event) {
	if e.err != nil {
		return
	}
	// data is JSON on one line: no newline to split into data fields.
	_, e.err = fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
}

func (e *eventWriter) comment() {
	if e.err == nil {
		_, e.err = e.w.Write([]byte(": keep-alive\n\n"))
	}
}

// Start listens on addr (see Listen) and serves s there in a goroutine.
// It returns the page's URL and Listen's warning, empty when there is
// none.
func (s *Server) Start(addr string) (url, warning string, err error) {
	ln, warning, err := Listen(addr)
	if err != nil {
		return "", "", err
	}
	s.ln = ln
	s.http = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	return URL(ln.Addr()), warning, nil
}

// CloseGrace is how long Stop lets the event streams drain.
const CloseGrace = 2 * time.Second

// Stop is Close with CloseGrace to drain; on a nil Server it does nothing.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), CloseGrace)
	defer cancel()
	return s.Close(ctx)
}

// Close ends every event stream, after the events already queued (the
// end event among them), and stops the server Start started, waiting up
// to the deadline of ctx for the streams to drain.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for ch := range s.subs {
		delete(s.subs, ch)
		close(ch)
	}
	s.mu.Unlock()
	if s.http == nil {
		return nil
	}
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	return err
}

// URL is the address of the page served on addr: http://host:port/, with
// an unspecified host shown as 127.0.0.1.
func URL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// Listen opens the TCP listener of the live view on addr: HOST:PORT, or a
// bare PORT or :PORT, which bind loopback (127.0.0.1); port 0 picks a free
// one. The warning is non-empty when the address is not loopback: other
// hosts can then read the run, and the view has no authentication. An
// empty addr is an error: nothing is served unless asked.
func Listen(addr string) (ln net.Listener, warning string, err error) {
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, "", err
	}
	if !isLoopback(host) {
		warning = fmt.Sprintf("the live view on %s is reachable from other hosts and has no authentication; use a loopback address (127.0.0.1:PORT, or a bare port) unless that is meant", net.JoinHostPort(host, port))
	}
	ln, err = net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, "", fmt.Errorf("live view: listen on %s: %w", addr, err)
	}
	return ln, warning, nil
}

// splitAddr reads the --ui address: PORT, :PORT or HOST:PORT.
func splitAddr(addr string) (host, port string, err error) {
	bad := func(why string) error {
		return fmt.Errorf("live view address %q: %s; want HOST:PORT, :PORT or PORT (e.g. 127.0.0.1:8080, :0)", addr, why)
	}
	switch {
	case addr == "":
		return "", "", bad("empty")
	case isPort(addr):
		return "127.0.0.1", addr, nil
	}
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		return "", "", bad(err.Error())
	}
	if !isPort(port) {
		return "", "", bad("port " + strconv.Quote(port) + " is not a number from 0 to 65535")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535 && strconv.Itoa(n) == s
}

// isLoopback reports whether host names the loopback interface only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
