package main

import (
	"errors"
	"net"
	"sync"
	"time"
)

// faultProxy forwards the TCP connections accepted on its listener to an
// upstream address and injects faults on them, switched while it runs:
//
//   - latency: each chunk of bytes is written latency after it was read,
//     in each direction (a one-way delay; the round trip gains twice it);
//   - rate: at most rate bytes per second in each direction (0: no
//     bound);
//   - stall: nothing is forwarded until the stall ends (bytes wait in the
//     proxy, as on a link that stops delivering without breaking);
//   - reset: every open connection is closed on both sides at once; new
//     connections go through.
//
// It plays the part of a fault proxy such as Toxiproxy in front of the
// NATS server, on the real TCP path of an agent process.
type faultProxy struct {
	ln       net.Listener
	upstream string

	mu      sync.Mutex
	latency time.Duration
	rate    int
	stalled chan struct{} // non-nil during a stall; closed when it ends
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// newFaultProxy listens on addr and forwards to upstream.
func newFaultProxy(addr, upstream string) (*faultProxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &faultProxy{ln: ln, upstream: upstream, conns: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[u] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(u, c)
		go p.pipe(c, u)
	}
}

// chunk is bytes read at a time.
type chunk struct {
	b  []byte
	at time.Time
}

// pipe copies src to dst through the faults until either side closes.
func (p *faultProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer p.drop(dst, src)
	ch := make(chan chunk, 256)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				ch <- chunk{b[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range ch {
		latency, rate, stalled := p.faults()
		if stalled != nil {
			<-stalled
		}
		if d := time.Until(c.at.Add(latency)); d > 0 {
			time.Sleep(d)
		}
		if _, err := dst.Write(c.b); err != nil {
			break
		}
		if rate > 0 {
			time.Sleep(time.Duration(len(c.b)) * time.Second / time.Duration(rate))
		}
	}
	for range ch { // let the reader end once src is closed
	}
}

func (p *faultProxy) faults() (time.Duration, int, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latency, p.rate, p.stalled
}

// drop closes both sides of a connection pair.
func (p *faultProxy) drop(a, b net.Conn) {
	p.mu.Lock()
	delete(p.conns, a)
	delete(p.conns, b)
	p.mu.Unlock()
	_ = a.Close()
	_ = b.Close()
}

// set sets the latency and the rate (bytes/s, 0: none).
func (p *faultProxy) set(latency time.Duration, rate int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency, p.rate = latency, rate
}

// stall holds every byte for d, then lets them through.
func (p *faultProxy) stall(d time.Duration) {
	p.mu.Lock()
	ch := make(chan struct{})
	p.stalled = ch
	p.mu.Unlock()
	time.AfterFunc(d, func() {
		p.mu.Lock()
		p.stalled = nil
		p.mu.Unlock()
		close(ch)
	})
}

// reset closes every open connection and reports how many pairs it cut.
func (p *faultProxy) reset() int {
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		// An RST rather than a FIN, as a broken link or a restarted
		// middlebox sends.
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
	return len(conns) / 2
}

// close stops accepting and closes every connection.
func (p *faultProxy) close() error {
	err := p.ln.Close()
	p.reset()
	p.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
