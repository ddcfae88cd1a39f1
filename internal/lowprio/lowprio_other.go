//go:build !unix

package lowprio

import "os/exec"

// start starts cmd at this process's priority: the system has no nice
// levels this package sets.
func start(cmd *exec.Cmd) error { return cmd.Start() }
