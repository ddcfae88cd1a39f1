package safefs

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// maxLinks bounds the symbolic links followed for one path, as the kernel's
// own limit (40 on Linux) does.
const maxLinks = 40

// errChanged reports a name that was replaced between its check and its
// open; the open is refused rather than trusted.
var errChanged = errors.New("changed while being opened")

// maxOpens bounds the tries of one open whose name keeps being replaced
// between its check and its open.
const maxOpens = 4

// testHookChecked, when set by a test, runs between an open's check of the
// name rel and the open itself: the window a concurrent writer can use.
var testHookChecked func(rel string)

// reopen runs open again, from the check on, when the name was replaced
// between its check and its open. An editor's atomic save or another
// process refreshing a cache file renames a new file over the name; the
// new file is as good as the old one and gets the same checks. Anything
// else that fails, or a name that keeps changing, is returned as is.
func reopen(open func() (*File, error)) (*File, error) {
	for try := 1; ; try++ {
		f, err := open()
		if err == nil || try == maxOpens || !errors.Is(err, errChanged) {
			return f, err
		}
	}
}

// target is a path resolved inside a view.
type target struct {
	rel   string      // the cleaned path as asked for
	canon string      // the same place with every symbolic link resolved
	info  fs.FileInfo // Lstat of canon: never a symbolic link
}

// resolve cleans rel and walks it one element at a time with Lstat,
// resolving symbolic links itself, so that every element actually
// traversed (not only the ones written in rel) is checked: a link may not be
// absolute, may not climb above the view, and may not pass through a hidden
// or private entry. The result is a path without links.
//
// This walk is a check, not the confinement: a concurrent writer can change
// the tree after it. Confinement comes from os.Root, which every later open
// goes through, and from comparing the opened handle with target.info.
func (f *FS) resolve(rel string) (target, error) {
	c, err := clean(rel)
	if err != nil {
		return target{}, err
	}
	t := target{rel: c}
	var done []string // elements resolved so far; each a real folder
	todo := strings.Split(c, "/")
	var last fs.FileInfo // Lstat of join(done), when current
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return target{}, outside(f.name)
			}
			done = done[:len(done)-1]
			last = nil
			continue
		}
		if err := checkName(name); err != nil {
			return target{}, err
		}
		if f.strict && textnorm.HasUnsafe(name) {
			return target{}, ErrName
		}
		cur := path.Join(append(done, name)...)
		fi, err := f.root.Lstat(cur)
		if err != nil {
			return target{}, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if f.strict {
				return target{}, ErrLink
			}
			if links++; links > maxLinks {
				return target{}, syscall.ELOOP
			}
			dest, err := f.root.Readlink(cur)
			if err != nil {
				return target{}, err
			}
			dest = filepath.ToSlash(dest)
			if dest == "" || dest[0] == '/' || filepath.IsAbs(dest) || isDrive(dest) {
				// os.Root refuses absolute links too; a link to the Vault's
				// own absolute path would also break if the Vault moved.
				return target{}, outside(f.name)
			}
			todo = append(strings.Split(dest, "/"), todo...)
			last = nil
			continue
		}
		if !fi.IsDir() && len(todo) > 0 && hasElem(todo) {
			return target{}, syscall.ENOTDIR
		}
		done = append(done, name)
		last = fi
	}
	t.canon = "."
	if len(done) > 0 {
		t.canon = path.Join(done...)
	}
	if last == nil {
		fi, err := f.root.Lstat(t.canon)
		if err != nil {
			return target{}, err
		}
		last = fi
	}
	t.info = last
	return t, nil
}

// hasElem reports whether elems still names something below the current
// element; a trailing "" or "." does not (they come from "a/" or "a/.").
func hasElem(elems []string) bool {
	for _, e := range elems {
		if e != "" && e != "." {
			return true
		}
	}
	return false
}
