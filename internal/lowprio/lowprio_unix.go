//go:build unix && !linux

package lowprio

import (
	"os/exec"
	"syscall"
)

// start starts cmd, then lowers its priority: a process's priority is
// the process's here, not a thread's, so it cannot be inherited from one
// thread alone.
func start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err == nil {
		syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, lower(p)) // best effort
	}
	return nil
}

// runContext runs cmd as Run does, leading a process group of its own:
// the sessions here are not what the cores are shared between.
func runContext(cmd *exec.Cmd, _ func() bool) error {
	inGroup(cmd, false)
	return Run(cmd)
}
