package sim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// supervisor starts child processes, keeps the tail of each one's
// stderr, and stops them: SIGTERM first, SIGKILL after a grace period.
// Children are started in their own process group and, on Linux, with a
// parent-death signal, so none outlives the supervising process. Every
// child is waited for.
type supervisor struct {
	// env is the children's environment; nil inherits this process's.
	env []string
	// envFor, if set, returns variables added to the environment of the
	// child numbered id.
	envFor func(id int) []string
	out    *SyncWriter // children's stderr lines, prefixed; nil discards
	// skip, if set, drops the stderr lines it reports (from both the
	// forwarded and the kept lines).
	skip func(line string) bool
	// onExit, if set, is called once per child, from the goroutine that
	// waited for it, after it exited and before wait sees it exited.
	onExit func(*child)

	mu       sync.Mutex
	children []*child
}

// child is one supervised process.
type child struct {
	name string
	id   int // the caller's number for it (the agent id)
	cmd  *exec.Cmd
	tail *tailWriter
	done chan struct{} // closed once the process has been waited for

	mu      sync.Mutex
	stopped bool // the supervisor signalled it
	ended   bool // waited for: state and waitErr are set
	state   *os.ProcessState
	waitErr error
}

// start runs path with args as a child named name, numbered id. Its
// stdout is discarded; its stderr is kept (last tailLines lines) and
// forwarded to s.out with the prefix "name| ".
func (s *supervisor) start(name string, id int, path string, args ...string) (*child, error) {
	c := &child{name: name, id: id, done: make(chan struct{})}
	c.tail = newTailWriter(tailLines, name+"| ", s.out)
	c.tail.skip = s.skip
	c.cmd = exec.Command(path, args...)
	c.cmd.Env = s.env
	if s.envFor != nil {
		env := s.env
		if env == nil {
			env = os.Environ()
		}
		c.cmd.Env = append(append([]string(nil), env...), s.envFor(id)...)
	}
	c.cmd.Stderr = c.tail
	c.cmd.SysProcAttr = childProcAttr()
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s.mu.Lock()
	s.children = append(s.children, c)
	s.mu.Unlock()
	go func() {
		err := c.cmd.Wait()
		c.mu.Lock()
		c.state, c.waitErr, c.ended = c.cmd.ProcessState, err, true
		c.mu.Unlock()
		if s.onExit != nil {
			s.onExit(c)
		}
		close(c.done)
	}()
	return c, nil
}

// list returns the children started so far.
func (s *supervisor) list() []*child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*child(nil), s.children...)
}

// wait waits until every child has exited or d has passed, and reports
// whether all have exited.
func (s *supervisor) wait(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, c := range s.list() {
		select {
		case <-c.done:
		case <-deadline.C:
			return false
		}
	}
	return true
}

// stop ends the children still running: SIGTERM to each, then SIGKILL to
// those still running after grace. It returns once every child has exited.
func (s *supervisor) stop(grace time.Duration) {
	if s.signalAll(syscall.SIGTERM) == 0 || s.wait(grace) {
		s.wait(time.Hour) // all exited or exiting: reap them
		return
	}
	s.signalAll(syscall.SIGKILL)
	for _, c := range s.list() {
		<-c.done
	}
}

// signalAll sends sig to every running child and returns how many it
// signalled.
func (s *supervisor) signalAll(sig syscall.Signal) int {
	n := 0
	for _, c := range s.list() {
		select {
		case <-c.done:
			continue
		default:
		}
		c.mu.Lock()
		c.stopped = true
		c.mu.Unlock()
		if err := c.cmd.Process.Signal(sig); err == nil {
			n++
		}
	}
	return n
}

// failures returns a *ChildError for every child that exited unsuccessfully
// on its own (children the supervisor stopped are not failures).
func (s *supervisor) failures() []error {
	var errs []error
	for _, c := range s.list() {
		if err := c.failure(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// failure returns nil while c runs, when it exited with status 0, or when
// the supervisor stopped it; otherwise a *ChildError with its exit status
// and the tail of its stderr.
func (c *child) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended || c.stopped || (c.waitErr == nil && c.state != nil && c.state.Success()) {
		return nil
	}
	e := &ChildError{Name: c.name, ID: c.id, PID: c.cmd.Process.Pid, Code: -1, Tail: c.tail.Lines()}
	switch {
	case c.state != nil:
		e.Status, e.Code = c.state.String(), c.state.ExitCode()
	case c.waitErr != nil:
		e.Status = c.waitErr.Error()
	}
	return e
}

// ChildError is an agent process (a child of Launch) that exited
// unsuccessfully.
type ChildError struct {
	Name   string
	ID     int // the child's number (the agent id)
	PID    int
	Status string // "exit status 1", "signal: killed"
	Code   int    // exit code, -1 if killed by a signal
	Tail   []string
}

// ErrChildFailed is wrapped by every *ChildError.
var ErrChildFailed = errors.New("child process failed")

func (e *ChildError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (pid %d) exited: %s", e.Name, e.PID, e.Status)
	if len(e.Tail) == 0 {
		b.WriteString("; no stderr output")
		return b.String()
	}
	fmt.Fprintf(&b, "; last %d stderr lines:", len(e.Tail))
	for _, l := range e.Tail {
		b.WriteString("\n    ")
		b.WriteString(l)
	}
	return b.String()
}

// Unwrap returns ErrChildFailed.
func (e *ChildError) Unwrap() error { return ErrChildFailed }
