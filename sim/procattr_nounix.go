//go:build !unix

package sim

import "syscall"

// childProcAttr has no process-group or parent-death options off Unix.
func childProcAttr() *syscall.SysProcAttr { return nil }
