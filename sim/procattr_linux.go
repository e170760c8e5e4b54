package sim

import "syscall"

// childProcAttr puts a child in its own process group (a terminal's
// Ctrl-C reaches the launcher only, which stops the children in order)
// and has the kernel kill it if the launcher dies first.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
