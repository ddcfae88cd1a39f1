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

// fileResident returns the process's resident file-backed and shared
// memory (the shared field of /proc/self/statm: RssFile and RssShmem),
// in bytes; ok is false when it cannot be read.
func fileResident() (n int64, ok bool) {
	var buf [128]byte
	fd, err := syscall.Open("/proc/self/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	m, err := syscall.Read(fd, buf[:])
	if err != nil || m <= 0 {
		return 0, false
	}
	// size resident shared text lib data dt, in pages.
	field, pages := 0, int64(0)
	for _, c := range buf[:m] {
		switch {
		case c == ' ' || c == '\n':
			if field == 2 {
				return pages * int64(syscall.Getpagesize()), true
			}
			field, pages = field+1, 0
		case c >= '0' && c <= '9':
			pages = pages*10 + int64(c-'0')
		default:
			return 0, false
		}
	}
	return 0, false
}
