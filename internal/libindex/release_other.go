//go:build !linux

package libindex

// release does nothing where the syscall package has no madvise (macOS,
// the BSDs) or segments are on the heap (Windows): the kernel drops a read
// segment's clean pages under memory pressure on its own.
func release([]byte) {}

// fileResident is not known here: searches release their segments' pages
// on time alone.
func fileResident() (int64, bool) { return 0, false }
