package lowprio

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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

// autogroupsFile holds 1 while the kernel shares the cores between
// sessions first (automatic session groups), and then between the
// processes of each by their nice levels.
const autogroupsFile = "/proc/sys/kernel/sched_autogroup_enabled"

// followEvery is how often the rank of a program's session follows the
// calls in flight: a call that comes in shares the cores with the session
// at the others' level for about that long (a tenth of a second more when
// the kernel has just taken another change).
const followEvery = 25 * time.Millisecond

// runContext runs cmd, in a session of its own when the cores are shared
// between sessions and inFlight reports no call, its session then
// following the calls (see follow).
func runContext(cmd *exec.Cmd, inFlight func() bool) error {
	own := inFlight != nil && !inFlight() && autogroups()
	inGroup(cmd, own)
	if err := start(cmd); err != nil {
		return err
	}
	if own {
		// Stopped once Wait returns: what it writes after the program
		// ends (reaped or not) reaches no other process.
		defer follow(cmd.Process.Pid, inFlight)()
	}
	return cmd.Wait()
}

// autogroups reports whether the cores are shared between sessions
// first.
func autogroups() bool {
	b, err := os.ReadFile(autogroupsFile)
	return err == nil && strings.TrimSpace(string(b)) == "1"
}

// follow ranks the session group of the program pid, which leads it,
// Nice levels below the others while inFlight reports calls, and at
// their level while it does not, until stop is called.
func follow(pid int, inFlight func() bool) (stop func()) {
	// Opened now, while pid is the program's: the file stays the
	// program's, and a write to it fails once the program has ended.
	f, err := os.OpenFile("/proc/"+strconv.Itoa(pid)+"/autogroup", os.O_WRONLY, 0)
	if err != nil {
		return func() {} // best effort: the session stays at its level
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer f.Close()
		t := time.NewTicker(followEvery)
		defer t.Stop()
		level := 0 // a new group's
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			want := 0
			if inFlight() {
				want = Nice
			}
			if want == level {
				continue
			}
			// The kernel takes an unprivileged process's changes a tenth
			// of a second apart (EAGAIN): tried again at the next tick.
			// Going back to level 0 needs no privilege.
			if _, err := f.Write([]byte(strconv.Itoa(want))); err == nil {
				level = want
			} else if !errors.Is(err, syscall.EAGAIN) {
				return // the program has ended, or its group may not be ranked here
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
