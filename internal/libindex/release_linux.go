package libindex

import "syscall"

// release drops the pages of a mapping from the process's resident set:
// the mapping stays valid, and a later read faults its pages in again
// from the page cache, which keeps them. A build releases every mapped
// segment each time it publishes, and a segment once it is loaded, so
// that what the build reads of the index (a merge's inputs, the segments'
// heads) does not stay resident: the kernel maps a file's pages in large
// folios (2 MiB on ext4 and xfs), so that a few bytes read from each of
// many segments would otherwise keep megabytes of each resident.
func release(data []byte) {
	if len(data) > 0 {
		_ = syscall.Madvise(data, syscall.MADV_DONTNEED)
	}
}
