package libindex

import "syscall"

// release drops the pages of a mapping from the process's resident set,
// as a merge does once it has read a segment: the mapping stays valid, and
// a later read faults its pages in again from the file.
func release(data []byte) {
	if len(data) > 0 {
		_ = syscall.Madvise(data, syscall.MADV_DONTNEED)
	}
}
