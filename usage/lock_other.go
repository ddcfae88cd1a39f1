//go:build !unix

package usage

import (
	"sync"

	"github.com/researchctx/researchctx/internal/safefs"
)

// On systems without flock the lock is this process's own: calls of one
// server are exact, servers in several processes on one grant are not
// excluded from each other (see docs/security.md).
var processLock sync.Mutex

func tryLock(*safefs.File) (bool, error) { return processLock.TryLock(), nil }

func unlock(*safefs.File) { processLock.Unlock() }

// processAlive cannot check another process here: a reservation of another
// process counts until its turn ends.
func processAlive(int) bool { return true }
