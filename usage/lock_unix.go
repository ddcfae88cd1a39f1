//go:build unix

package usage

import (
	"errors"
	"syscall"

	"github.com/researchctx/researchctx/internal/safefs"
)

// tryLock takes an exclusive flock on f without waiting. flock locks belong
// to the open file, so two opens in one process exclude each other too.
func tryLock(f *safefs.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlock(f *safefs.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// processAlive reports whether pid names a running process: signal 0 checks
// without sending; EPERM means it runs as another user.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
