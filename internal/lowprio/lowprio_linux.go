package lowprio

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// start starts cmd, then lowers the priority of each of its threads:
// Linux keeps a priority per thread, and a thread the program starts
// later inherits its starter's. (Lowering the forking thread first would
// leave a lowered thread in this process: an unprivileged process cannot
// raise it back, and the runtime does not always end it.)
func start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	// Who 0 is the calling thread; the raw value is 20 - nice.
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return nil
	}
	nice, pid := lower(20-p), cmd.Process.Pid
	// Best effort: at worst the program runs at ours.
	syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil && tid != pid {
			syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice)
		}
	}
	return nil
}
