//go:build unix && !linux

package sim

import "syscall"

// childProcAttr puts a child in its own process group (a terminal's
// Ctrl-C reaches the launcher only, which stops the children in order).
// Without a parent-death signal, a launcher killed with SIGKILL leaves
// its children to end on their own: they time out waiting for the run.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
