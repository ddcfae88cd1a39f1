//go:build !unix

package safefs

import (
	"io/fs"
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

// processGone cannot check another process here: a temporary file is left
// until it is old enough (see RemoveStaleTemps).
func processGone(int) bool { return false }

// FileID returns "" here: this platform's stat carries no identity the
// package reads (see the Unix version).
func FileID(fs.FileInfo) string { return "" }

// FileKey returns "" here, as FileID does.
func FileKey(fs.FileInfo) string { return "" }
