package catalog

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// stampsFresh reports whether every stamp matches an Lstat of its path
// now (see stamp). The paths are looked up from the Vault root, opened
// once, with fstatat into one buffer: a new process checks some 30,000
// stamps at 10,000 papers before its first answer, and os.Lstat would
// walk the root's own path and allocate a FileInfo for each.
func stampsFresh(root string, stamps []stamp) bool {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	for _, s := range stamps {
		if err := lstatAt(fd, s.path, &st); err != nil {
			return false
		}
		typ := st.Mode & unix.S_IFMT
		if s.file {
			if typ != unix.S_IFREG {
				return false
			}
			continue
		}
		if !time.Unix(st.Mtim.Sec, st.Mtim.Nsec).Equal(s.mtime) || (typ == unix.S_IFDIR) != s.dir || (!s.dir && st.Size != s.size) {
			return false
		}
	}
	return true
}

// lstatAt is fstatat(dir, rel) without following a link at rel's end,
// as os.Lstat does, retried when interrupted.
func lstatAt(dir int, rel string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dir, rel, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
