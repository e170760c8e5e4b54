//go:build !unix

package main

import "syscall"

// childProcAttr has no process-group or parent-death options off Unix.
func childProcAttr() *syscall.SysProcAttr { return nil }
