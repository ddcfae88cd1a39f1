package safefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
)

// File is a regular file opened through an FS (for reading) or a Dir (for
// reading or appending). Its errors name the file by its vault-relative
// path. It implements fs.File, io.ReaderAt, io.Seeker and io.Writer.
type File struct {
	f    *os.File
	path string // vault-relative
}

// Name returns the file's vault-relative path.
func (f *File) Name() string { return f.path }

// Read reads up to len(p) bytes into p.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	return n, f.wrap("read", err)
}

// ReadAt reads len(p) bytes from offset off.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	return n, f.wrap("read", err)
}

// Seek sets the offset for the next Read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	n, err := f.f.Seek(offset, whence)
	return n, f.wrap("seek", err)
}

// Stat returns information about the opened file (fstat), named by the
// last element of its path.
func (f *File) Stat() (fs.FileInfo, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return nil, f.wrap("stat", err)
	}
	return renamed(fi, path.Base(f.path)), nil
}

// Close closes the file.
func (f *File) Close() error { return f.wrap("close", f.f.Close()) }

// wrap replaces the os layer's path (absolute) with the vault-relative one.
// io.EOF passes through unchanged, as io.Reader requires.
func (f *File) wrap(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	for {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			break
		}
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: f.path, Err: err}
}

// renamedInfo reports a FileInfo under another name: os names it after the
// element it opened, which for a resolved link is the link's target.
type renamedInfo struct {
	fs.FileInfo
	name string
}

func (r renamedInfo) Name() string { return r.name }

func renamed(fi fs.FileInfo, name string) fs.FileInfo {
	if fi.Name() == name {
		return fi
	}
	return renamedInfo{fi, name}
}

// formatSize writes a byte count for an error message.
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Write writes p to a file opened by Dir.OpenAppend: one write(2) at the
// file's end.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, f.wrap("write", err)
}

// Fd returns the file descriptor, for advisory locks (flock) on a log
// shared by several processes.
func (f *File) Fd() uintptr { return f.f.Fd() }
