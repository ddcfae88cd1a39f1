//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
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

// processGone reports whether no process with this pid runs on this
// machine: signal 0 checks without sending, and only ESRCH says none does
// (EPERM is a process of another user).
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// FileID returns the identity of the file fi describes, as stat reports it
// on this machine: device, inode and change time. A record that names a
// file by it (a cache's path record, say) is one that a copy of the record
// made elsewhere, or before the file was replaced, does not match. It is
// "" when fi carries no stat.
func FileID(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return FileKey(fi) + ":" + strconv.FormatInt(changeTime(st), 10)
}

// FileKey is FileID without the change time: the device and inode, which
// stay the same while a file is written, touched or renamed, and which a
// copy of the file (on another machine, from an archive) does not share.
// It is "" when fi carries no stat.
func FileKey(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
}
