//go:build !unix

package lowprio

import "os/exec"

// start starts cmd at this process's priority: the system has no nice
// levels this package sets.
func start(cmd *exec.Cmd) error { return cmd.Start() }

// runContext runs cmd as Run does: the system has no sessions this
// package ranks.
func runContext(cmd *exec.Cmd, _ func() bool) error { return Run(cmd) }
