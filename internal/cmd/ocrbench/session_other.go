//go:build !unix

package main

import "syscall"

// newSession has a program started as usual: there are no sessions here.
func newSession() *syscall.SysProcAttr { return nil }
