//go:build !unix

package acp

import (
	"os"
	"os/exec"
	"syscall"
)

// Without process groups only the agent process itself can be reached.

func ownGroup(cmd *exec.Cmd) {}

func signalGroup(pid int, sig syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func groupAlive(pid int) bool { return false }
