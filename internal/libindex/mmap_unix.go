//go:build unix

package libindex

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/researchctx/researchctx/internal/safefs"
)

// mapsFiles is set where mapFile maps files rather than reading them.
const mapsFiles = true

// mapFile maps the regular file name of dir read-only. The mapping
// outlives the file's removal, so a segment merged away stays readable by
// whoever holds it.
func mapFile(dir *safefs.Dir, name string) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size <= 0 || size > 1<<40 {
		return nil, fmt.Errorf("%s: %w", name, errFormat)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: map: %w", name, err)
	}
	return data, nil
}

// unmap releases a mapping of mapFile.
func unmap(data []byte) { _ = syscall.Munmap(data) }

// lockFile takes an exclusive flock on f, waiting for it.
func lockFile(f *safefs.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *safefs.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
