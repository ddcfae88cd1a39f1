//go:build unix

package relations

import (
	"os"
	"syscall"
)

// openFlags opens the cache read-only without waiting: a FIFO with no
// writer would otherwise block the open forever.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
