//go:build unix

package safefs

import (
	"os"
	"syscall"
)

// openFlags opens read-only without waiting: a FIFO with no writer would
// otherwise block the open forever. O_NOCTTY keeps a terminal device, should
// one be swapped in, from becoming the process's controlling terminal.
// os.Root adds O_NOFOLLOW itself and resolves links inside the root.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

func isAbs(p string) bool { return len(p) > 0 && p[0] == '/' }

// appendFlags opens a log for appending without waiting (a FIFO swapped in
// fails with ENXIO instead of blocking); createFlags makes a new temporary
// file and never reuses one.
const (
	appendFlags = os.O_RDWR | os.O_APPEND | os.O_CREATE | syscall.O_NONBLOCK | syscall.O_NOCTTY
	createFlags = os.O_WRONLY | os.O_CREATE | os.O_EXCL | syscall.O_NOCTTY
)
