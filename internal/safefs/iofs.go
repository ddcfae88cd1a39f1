package safefs

import (
	"errors"
	"io"
	"io/fs"
	"path"
)

// FS returns the view as an fs.FS (also fs.ReadDirFS and fs.StatFS), for
// fs.WalkDir, fs.Glob and the like. Names follow fs.ValidPath and all the
// rules of the view apply. Opening a folder yields an fs.ReadDirFile over
// the entries ReadDir keeps; opening anything else that is not a regular
// file fails with ErrNotRegular. Reads through it are not capped: use
// ReadFile for a capped read.
func (f *FS) FS() fs.FS { return ioFS{f} }

type ioFS struct{ f *FS }

var (
	_ fs.ReadDirFS = ioFS{}
	_ fs.StatFS    = ioFS{}
)

// valid applies fs.ValidPath, as the fs.FS contract asks. The error is
// fs.ErrInvalid and, when Clean would refuse the name too, also Clean's
// cause (ErrOutside for "..", say).
func (x ioFS) valid(op, name string) error {
	if fs.ValidPath(name) {
		return nil
	}
	var cause error = fs.ErrInvalid
	if _, err := clean(name); err != nil && !errors.Is(err, fs.ErrInvalid) {
		cause = &invalidError{err}
	}
	return &fs.PathError{Op: op, Path: x.f.errPath(name), Err: cause}
}

// invalidError is fs.ErrInvalid with a more specific cause.
type invalidError struct{ cause error }

func (e *invalidError) Error() string   { return e.cause.Error() }
func (e *invalidError) Unwrap() []error { return []error{fs.ErrInvalid, e.cause} }

func (x ioFS) Open(name string) (fs.File, error) {
	if err := x.valid("open", name); err != nil {
		return nil, err
	}
	t, err := x.f.resolve(name)
	if err != nil {
		return nil, x.f.pathError("open", x.f.errPath(name), err)
	}
	if !t.info.IsDir() {
		return x.f.Open(name)
	}
	list, err := x.f.readDir(t)
	if err != nil {
		return nil, err
	}
	return &dirFile{info: renamed(t.info, path.Base(t.rel)), path: x.f.VaultPath(t.rel), list: list}, nil
}

func (x ioFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := x.valid("readdir", name); err != nil {
		return nil, err
	}
	return x.f.ReadDir(name)
}

func (x ioFS) Stat(name string) (fs.FileInfo, error) {
	if err := x.valid("stat", name); err != nil {
		return nil, err
	}
	return x.f.Stat(name)
}

// dirFile is an opened folder of the fs.FS adapter. Its listing is read at
// open, so it holds no handle.
type dirFile struct {
	info fs.FileInfo
	path string
	list []*entry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }

func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: reason(fs.ErrInvalid, "is a folder")}
}

// ReadDir follows the fs.ReadDirFile contract: n > 0 returns at most n
// entries and io.EOF at the end; n <= 0 returns all that remain.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.list[d.off:]
	if n > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(n, len(rest))]
	}
	d.off += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, e := range rest {
		out[i] = e
	}
	return out, nil
}
