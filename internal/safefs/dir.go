package safefs

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// dirName is a name listed in a folder and its type (fs.ModeType bits),
// known unless the file system's listing did not give it (listDir).
type dirName struct {
	name  string
	typ   fs.FileMode
	known bool
}

// entry is a listed folder entry. Unlike the entries of os.ReadDir, its Info
// goes through the view's os.Root and its errors name vault-relative paths.
type entry struct {
	fsys  *FS
	rel   string // path inside the view, under the folder as asked for
	canon string // the same entry under the folder's resolved path
	typ   fs.FileMode
	// dest is, for a symbolic link, the Lstat of the file or folder it
	// resolves to inside the view.
	dest fs.FileInfo
}

func (e *entry) Name() string      { return path.Base(e.rel) }
func (e *entry) IsDir() bool       { return e.typ.IsDir() }
func (e *entry) Type() fs.FileMode { return e.typ }
func (e *entry) String() string    { return fs.FormatDirEntry(e) }
func (e *entry) Info() (fs.FileInfo, error) {
	if e.dest != nil && e.typ&fs.ModeSymlink == 0 {
		return renamed(e.dest, e.Name()), nil // a link Walk reports as its target
	}
	return e.fsys.lstat(e.rel, e.canon)
}

// lstat returns the Lstat of canon (a resolved path) named after rel.
func (f *FS) lstat(rel, canon string) (fs.FileInfo, error) {
	fi, err := f.root.Lstat(canon)
	if err != nil {
		return nil, f.pathError("lstat", f.VaultPath(rel), err)
	}
	return renamed(fi, path.Base(rel)), nil
}

// readDir lists the folder t, sorted by name, keeping only what ReadDir
// documents.
func (f *FS) readDir(t target) ([]*entry, error) {
	vp := f.VaultPath(t.rel)
	if !t.info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: vp, Err: reason(fs.ErrInvalid, "not a folder")}
	}
	h, err := f.root.OpenFile(t.canon, openFlags, 0)
	if err != nil {
		return nil, f.pathError("readdir", vp, err)
	}
	defer h.Close()
	got, err := h.Stat()
	if err != nil {
		return nil, f.pathError("readdir", vp, err)
	}
	if !os.SameFile(t.info, got) {
		return nil, &fs.PathError{Op: "readdir", Path: vp, Err: errChanged}
	}
	des, err := listDir(h)
	if err != nil {
		return nil, f.pathError("readdir", vp, err)
	}
	out := make([]*entry, 0, len(des))
	for _, de := range des {
		name := de.name
		if !visible(name) {
			continue
		}
		canon := path.Join(t.canon, name)
		if !de.known {
			// The file system did not say: ask it, through the root.
			fi, err := f.root.Lstat(canon)
			if err != nil {
				continue // gone since the listing
			}
			de.typ = fi.Mode().Type()
		}
		if f.strict && (de.typ&fs.ModeSymlink != 0 || textnorm.HasUnsafe(name)) {
			continue
		}
		e := &entry{fsys: f, rel: path.Join(t.rel, name), canon: canon, typ: de.typ}
		switch {
		case e.typ.IsDir(), e.typ.IsRegular():
		case e.typ&fs.ModeSymlink != 0:
			dt, err := f.resolve(e.canon)
			if err != nil || !(dt.info.IsDir() || dt.info.Mode().IsRegular()) {
				continue
			}
			e.dest = dt.info
		default:
			continue // FIFOs, sockets, devices: nothing to read
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.rel, b.rel) })
	return out, nil
}
