//go:build !unix

package libindex

import "github.com/researchctx/researchctx/internal/safefs"

// mapsFiles is unset: segments are read, not mapped.
const mapsFiles = false

// mapFile reads the file: systems without mmap keep segments on the heap.
func mapFile(dir *safefs.Dir, name string) ([]byte, error) { return dir.ReadFile(name, 1<<40) }

func unmap([]byte) {}

// lockFile does not lock: without flock, writers rely on the atomic
// publication of segments and manifests alone.
func lockFile(*safefs.File) error { return nil }

func unlockFile(*safefs.File) {}
