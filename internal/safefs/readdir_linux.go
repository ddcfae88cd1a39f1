package safefs

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// listDir lists the names in the open folder h and their types, as the
// file system's directory entries give them (known false where it gives
// none). An os.File opened in an os.Root, as every folder of a view is,
// makes ReadDir Lstat each entry, which a walk of 10,000 paper folders
// pays 10,000 times for types the entries already hold.
func listDir(h *os.File) ([]dirName, error) {
	rc, err := h.SyscallConn()
	if err != nil {
		return nil, err
	}
	var out []dirName
	var rerr error
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, err := unix.ReadDirent(int(fd), buf)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				rerr = err
				return true
			}
			if n <= 0 {
				return true
			}
			if out, err = parseDirents(out, buf[:n]); err != nil {
				rerr = err
				return true
			}
		}
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: h.Name(), Err: err}
	}
	return out, nil
}

// direntBufs holds the buffers listDir reads entries into, as os does
// for ReadDir: a walk lists many folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

// errDirent reports a directory entry that does not fit its buffer.
var errDirent = errors.New("malformed directory entry")

// Offsets in a struct linux_dirent64: d_ino (8 bytes), d_off (8),
// d_reclen (2), d_type (1), then d_name, NUL-terminated.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// parseDirents appends the entries of b, as getdents64 fills it, but
// "." and "..".
func parseDirents(out []dirName, b []byte) ([]dirName, error) {
	for len(b) > 0 {
		if len(b) < direntName {
			return out, errDirent
		}
		reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
		if reclen < direntName || reclen > len(b) {
			return out, errDirent
		}
		rec := b[:reclen]
		b = b[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 {
			continue // a deleted entry
		}
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		d := dirName{name: string(name), known: true}
		switch rec[direntType] {
		case unix.DT_DIR:
			d.typ = fs.ModeDir
		case unix.DT_REG:
		case unix.DT_LNK:
			d.typ = fs.ModeSymlink
		case unix.DT_FIFO:
			d.typ = fs.ModeNamedPipe
		case unix.DT_SOCK:
			d.typ = fs.ModeSocket
		case unix.DT_CHR:
			d.typ = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			d.typ = fs.ModeDevice
		default:
			d.known = false
		}
		out = append(out, d)
	}
	return out, nil
}
