package safefs

import "syscall"

// changeTime returns the inode's change time in nanoseconds.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
