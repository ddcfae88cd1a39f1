// Package safefs is the only way the SDK reads the Vault, and the only way
// it reads and writes its own files (see Dir).
//
// An FS is a read-only view of a folder tree built on os.Root. It refuses
// anything that could leave the view or reach what the agent must not see:
// ".." elements, absolute paths, NUL bytes and backslashes in names,
// symbolic links that leave the view (or are absolute), hidden entries and
// the private .agentero folder, and every file type other than regular
// files and folders. Files are opened without blocking and checked on the
// opened handle, so a FIFO cannot hang a read and a file swapped for a link
// between the check and the open is refused rather than read.
//
// The SDK's own files — caches under .agentero/cache, grants and usage logs
// under .agentero/context-sessions — go through a Dir, with stricter rules:
// no symbolic link at all from .agentero down, regular files only,
// non-blocking opens, atomic writes (temporary file, fsync, rename) and
// one checksummed format for whole-file caches (WriteSealed, Seal).
//
// Errors name only vault-relative paths: the machine's absolute paths and
// the targets of symbolic links never appear in them.
package safefs

import (
	"io/fs"
	"os"
	"path"
	"strings"
)

// DefaultMax is the read cap used when a caller passes max <= 0.
const DefaultMax = 2 << 20

// FS is a read-only view of a folder tree (the Vault, or a folder in it)
// that refuses anything that could leave it. It is safe for concurrent use.
type FS struct {
	root *os.Root
	// name is the vault-relative path of the view's root: "." for the Vault,
	// "papers/x" for a Sub view. Errors are reported under it.
	name string
	// strict refuses every symbolic link and every name with an unsafe
	// character (see Strict).
	strict bool
}

// Open opens the Vault at dir, an absolute path to a folder. The returned
// error never contains dir.
func Open(dir string) (*FS, error) {
	if !isAbs(dir) {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: reason(fs.ErrInvalid, "vault path is not absolute")}
	}
	f := &FS{name: "."}
	// os.OpenRoot opens dir without O_NONBLOCK; a FIFO there would block it.
	if fi, err := os.Stat(dir); err != nil {
		return nil, f.pathError("open", ".", err)
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: reason(fs.ErrInvalid, "vault is not a folder")}
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, f.pathError("open", ".", err)
	}
	f.root = r
	return f, nil
}

// Close releases the view's folder handle. Views made with Sub are
// independent and must be closed on their own.
func (f *FS) Close() error {
	if err := f.root.Close(); err != nil {
		return f.pathError("close", f.name, err)
	}
	return nil
}

// Strict returns a view of the same folder, sharing f's handle (close only
// one of them), for reading documents: besides f's own rules it refuses every
// symbolic link, at any element of a path and even when it stays inside the
// view (ErrLink), and every entry whose name holds a control or
// bidirectional-formatting character or is not UTF-8 (ErrName, see
// textnorm.Unsafe). Listings and walks leave both out. Sub views of a
// strict view are strict.
//
// The rule is checked element by element before the open and held after it
// by the identity check: a name swapped for a link between the two is
// refused as changed.
func (f *FS) Strict() *FS { return &FS{root: f.root, name: f.name, strict: true} }

// Name returns the vault-relative path of the view's root: "." for the
// Vault itself.
func (f *FS) Name() string { return f.name }

// VaultPath returns the vault-relative path of rel, a path inside the view.
func (f *FS) VaultPath(rel string) string { return path.Join(f.name, rel) }

// errPath is the path an error about rel names: vault-relative when rel is
// valid, a redacted echo otherwise.
func (f *FS) errPath(rel string) string {
	if c, err := clean(rel); err == nil {
		return f.VaultPath(c)
	}
	if f.name == "." {
		return echo(rel)
	}
	e := echo(rel)
	if strings.HasPrefix(e, "(") {
		return e
	}
	return f.name + "/" + e
}

// Sub returns a view confined to the folder rel. Symbolic links that leave
// that folder are refused by the new view, even when they stay inside the
// Vault. rel may itself pass through symbolic links inside f.
func (f *FS) Sub(rel string) (*FS, error) {
	t, err := f.resolve(rel)
	if err != nil {
		return nil, f.pathError("sub", f.errPath(rel), err)
	}
	vp := f.VaultPath(t.rel)
	if !t.info.IsDir() {
		return nil, &fs.PathError{Op: "sub", Path: vp, Err: reason(fs.ErrInvalid, "not a folder")}
	}
	r, err := f.root.OpenRoot(t.canon)
	if err != nil {
		return nil, f.pathError("sub", vp, err)
	}
	// The folder may have been swapped between resolving and opening: keep
	// the handle only if it is the folder that was checked.
	got, err := r.Stat(".")
	if err != nil || !os.SameFile(t.info, got) {
		r.Close()
		return nil, &fs.PathError{Op: "sub", Path: vp, Err: errChanged}
	}
	return &FS{root: r, name: vp, strict: f.strict}, nil
}

// Stat returns information about rel, following symbolic links that stay
// inside the view (their target's information is returned under rel's
// name). It classifies any type, FIFOs included, without opening it.
func (f *FS) Stat(rel string) (fs.FileInfo, error) {
	t, err := f.resolve(rel)
	if err != nil {
		return nil, f.pathError("stat", f.errPath(rel), err)
	}
	return renamed(t.info, path.Base(t.rel)), nil
}

// Open opens the regular file rel for reading. It refuses folders, FIFOs,
// sockets and devices without blocking: the file is opened non-blocking
// through os.Root and the opened handle must be the regular file that was
// checked before the open.
func (f *FS) Open(rel string) (*File, error) {
	return reopen(func() (*File, error) { return f.open(rel) })
}

func (f *FS) open(rel string) (*File, error) {
	t, err := f.resolve(rel)
	if err != nil {
		return nil, f.pathError("open", f.errPath(rel), err)
	}
	vp := f.VaultPath(t.rel)
	if !t.info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: vp, Err: ErrNotRegular}
	}
	if testHookChecked != nil {
		testHookChecked(t.rel)
	}
	h, err := f.root.OpenFile(t.canon, openFlags, 0)
	if err != nil {
		return nil, f.pathError("open", vp, err)
	}
	got, err := h.Stat()
	if err != nil {
		h.Close()
		return nil, f.pathError("open", vp, err)
	}
	// Between resolve and OpenFile the name may have been replaced (by a
	// link to a hidden file, a FIFO, another file). os.Root already kept the
	// open inside the view; the identity check also keeps it on the file
	// that passed the hidden/private checks.
	if !got.Mode().IsRegular() {
		h.Close()
		return nil, &fs.PathError{Op: "open", Path: vp, Err: ErrNotRegular}
	}
	if !os.SameFile(t.info, got) {
		h.Close()
		return nil, &fs.PathError{Op: "open", Path: vp, Err: errChanged}
	}
	return &File{f: h, path: vp}, nil
}

// ReadFile returns the content of the regular file rel. A file larger than
// max bytes (DefaultMax when max <= 0) is refused with ErrTooLarge, before
// reading when its size is known and otherwise as soon as the cap is passed.
func (f *FS) ReadFile(rel string, max int64) ([]byte, error) {
	h, err := f.Open(rel)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return readCapped(h, max)
}

func tooLarge(max int64) error {
	return reason(ErrTooLarge, "larger than "+formatSize(max))
}

// ReadText returns the content of rel if it is text by content (see
// IsText), else ErrNotText. max is as for ReadFile.
func (f *FS) ReadText(rel string, max int64) (string, error) {
	b, err := f.ReadFile(rel, max)
	if err != nil {
		return "", err
	}
	if !IsText(b) {
		c, _ := clean(rel)
		return "", &fs.PathError{Op: "read", Path: f.VaultPath(c), Err: ErrNotText}
	}
	return string(b), nil
}

// ReadDir lists the folder rel, sorted by name. Hidden entries, the private
// folder, and entries that are neither folders nor regular files are
// omitted; so are symbolic links unless they resolve, inside the view, to a
// visible folder or regular file. Kept links are listed as links
// (Type() == fs.ModeSymlink), as os.ReadDir does, so fs.WalkDir does not
// follow them.
func (f *FS) ReadDir(rel string) ([]fs.DirEntry, error) {
	t, err := f.resolve(rel)
	if err != nil {
		return nil, f.pathError("readdir", f.errPath(rel), err)
	}
	list, err := f.readDir(t)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(list))
	for i, e := range list {
		out[i] = e
	}
	return out, nil
}
