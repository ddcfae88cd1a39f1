//go:build !unix

package safefs

import (
	"os"
	"path/filepath"
)

// openFlags opens read-only; platforms without O_NONBLOCK have no FIFOs
// that block an open in the same way.
const openFlags = os.O_RDONLY

func isAbs(p string) bool { return filepath.IsAbs(p) }

const (
	appendFlags = os.O_RDWR | os.O_APPEND | os.O_CREATE
	createFlags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
)
