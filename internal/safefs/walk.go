package safefs

import (
	"errors"
	"io/fs"
)

// MaxWalkDepth bounds every Walk, whatever the caller asks for, so that a
// bind mount that contains its own parent cannot make a walk endless.
const MaxWalkDepth = 64

// Walk calls fn for the files and folders below the folder rel (not for rel
// itself), in lexical order, with paths inside the view.
//
// It descends at most maxDepth levels (rel's children are depth 1; <= 0 or
// above MaxWalkDepth means MaxWalkDepth) and yields at most maxFiles regular
// files (<= 0 means no limit). truncated reports that a cap hid something:
// a non-empty folder at the depth limit, or a file past maxFiles.
//
// Entries ReadDir omits are skipped. A symbolic link to a regular file
// inside the view is yielded as a regular file (Type() == 0, Info of the
// target); a link to a folder is skipped, never descended, which rules out
// cycles and duplicate results (the folder itself is walked under its real
// path when it is in the view). Folders that cannot be read are skipped.
//
// fn may return fs.SkipDir (for a folder: do not descend; for a file: skip
// the rest of its folder) or fs.SkipAll (stop; Walk returns a nil error).
// Any other error stops the walk and is returned.
func (f *FS) Walk(rel string, maxDepth, maxFiles int, fn func(rel string, d fs.DirEntry) error) (truncated bool, err error) {
	t, err := f.resolve(rel)
	if err != nil {
		return false, f.pathError("walk", f.errPath(rel), err)
	}
	if maxDepth <= 0 || maxDepth > MaxWalkDepth {
		maxDepth = MaxWalkDepth
	}
	if !t.info.IsDir() {
		return false, &fs.PathError{Op: "walk", Path: f.VaultPath(t.rel), Err: reason(fs.ErrInvalid, "not a folder")}
	}
	w := &walker{f: f, maxDepth: maxDepth, maxFiles: maxFiles, fn: fn}
	err = w.dir(t, 1)
	if errors.Is(err, fs.SkipAll) || errors.Is(err, errStop) {
		err = nil
	}
	return w.truncated, err
}

// errStop ends a walk that reached maxFiles.
var errStop = errors.New("stop")

type walker struct {
	f         *FS
	maxDepth  int
	maxFiles  int
	files     int
	truncated bool
	fn        func(string, fs.DirEntry) error
}

// dir walks the entries of folder t, which are at the given depth.
func (w *walker) dir(t target, depth int) error {
	list, err := w.f.readDir(t)
	if err != nil {
		return nil // unreadable folders are skipped
	}
	for _, e := range list {
		if e.dest != nil {
			if !e.dest.Mode().IsRegular() {
				continue // link to a folder: not descended
			}
			e = &entry{fsys: w.f, rel: e.rel, canon: e.canon, dest: e.dest}
		}
		if !e.typ.IsDir() {
			if w.maxFiles > 0 && w.files >= w.maxFiles {
				w.truncated = true
				return errStop
			}
			w.files++
			if err := w.fn(e.rel, e); err != nil {
				if errors.Is(err, fs.SkipDir) {
					return nil
				}
				return err
			}
			continue
		}
		if err := w.fn(e.rel, e); err != nil {
			if errors.Is(err, fs.SkipDir) {
				continue
			}
			return err
		}
		sub := target{rel: e.rel, canon: e.canon}
		sub.info, err = w.f.root.Lstat(e.canon)
		if err != nil {
			continue
		}
		if depth >= w.maxDepth {
			if more, _ := w.f.readDir(sub); len(more) > 0 {
				w.truncated = true
			}
			continue
		}
		if err := w.dir(sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}
