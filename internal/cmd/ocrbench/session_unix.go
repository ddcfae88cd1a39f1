//go:build unix

package main

import "syscall"

// newSession has a program started in a session of its own.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
