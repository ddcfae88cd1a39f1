//go:build unix

package lowprio

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inGroup has cmd lead a process group of its own (in a session of its
// own when session is set), and has the end of cmd's context kill that
// group, not the program alone.
func inGroup(cmd *exec.Cmd, session bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if session {
		cmd.SysProcAttr.Setsid = true
	} else {
		cmd.SysProcAttr.Setpgid = true
	}
	if cmd.Cancel == nil {
		return // not made with exec.CommandContext
	}
	cmd.Cancel = func() error {
		// The group's id is its leader's pid, ours to wait for: it is not
		// reused before cmd.Wait reaps the leader.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
