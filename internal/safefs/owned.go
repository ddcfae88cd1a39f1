package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DirFlag says how OpenDir treats missing or existing folders.
type DirFlag int

const (
	// Create creates missing folders, mode 0700.
	Create DirFlag = 1 << iota
	// Private also makes existing folders 0700, through the opened handle
	// of each (never by name, which a link could redirect).
	Private
)

// Dir is a folder the SDK owns: a folder under a Vault's private .agentero
// folder (caches, grants, usage logs), or a cache folder the host chose.
// Unlike FS it reads and writes, and it follows no symbolic link at all:
// every element from .agentero down must be a real folder and every file
// a regular file. Files are opened without blocking and checked on the
// opened handle, as FS does, so a FIFO cannot hang a call and a name
// swapped between the check and the open is refused. Writes are atomic: a
// temporary file in the same folder, synced, then renamed over the name.
//
// Errors name the folder by its path from .agentero on (or by its last
// element for a folder outside a Vault), never by an absolute path.
type Dir struct {
	root *os.Root
	name string // how errors name the folder
}

// OpenDir opens the folder at dir (a relative dir is taken from the
// working directory). When dir has a
// .agentero element, the folders from that element down must be real
// folders (no symbolic links); the part before it, the Vault, is taken as
// given. Any other dir is a folder the host chose and is taken (and with
// Create, made) as given.
func OpenDir(dir string, flag DirFlag) (*Dir, error) {
	if !isAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: echo(dir), Err: reason(fs.ErrInvalid, "not an absolute path")}
		}
		dir = abs
	}
	dir = filepath.Clean(dir)
	base, rel := splitPrivate(dir)
	name := rel
	if rel == "." {
		name = filepath.Base(dir)
	}
	fail := func(err error) error { return ownedError("open", name, err) }
	if rel == "." && flag&(Create|Private) != 0 {
		// A folder the host chose is created as given.
		if err := os.MkdirAll(base, 0o700); err != nil {
			return nil, fail(err)
		}
	}
	// os.OpenRoot opens without O_NONBLOCK: refuse a FIFO before it.
	fi, err := os.Stat(base)
	if err != nil {
		return nil, fail(err)
	}
	if !fi.IsDir() {
		return nil, fail(reason(fs.ErrInvalid, "not a folder"))
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, fail(err)
	}
	if rel == "." {
		if flag&Private != 0 {
			if err := chmodDir(r, ".", fi); err != nil {
				r.Close()
				return nil, fail(err)
			}
		}
		return &Dir{root: r, name: name}, nil
	}
	defer r.Close()
	last, err := walkDirs(r, rel, flag)
	if err != nil {
		return nil, ownedError("open", name, err)
	}
	sub, err := r.OpenRoot(rel)
	if err != nil {
		return nil, fail(err)
	}
	if got, err := sub.Stat("."); err != nil || !os.SameFile(last, got) {
		sub.Close()
		return nil, fail(errChanged)
	}
	return &Dir{root: sub, name: name}, nil
}

// splitPrivate splits dir at its last .agentero element into the Vault and
// the path from .agentero on; rel is "." when dir has no such element.
func splitPrivate(dir string) (base, rel string) {
	elems := strings.Split(filepath.ToSlash(dir), "/")
	for i := len(elems) - 1; i > 0; i-- {
		if elems[i] == PrivateDir {
			base = filepath.FromSlash(strings.Join(elems[:i], "/"))
			if base == "" {
				base = string(filepath.Separator)
			}
			return base, strings.Join(elems[i:], "/")
		}
	}
	return dir, "."
}

// walkDirs checks that every element of rel under r is a real folder,
// creating missing ones when flag says so, and returns the last one's
// Lstat.
func walkDirs(r *os.Root, rel string, flag DirFlag) (fs.FileInfo, error) {
	var last fs.FileInfo
	cur := ""
	for elem := range strings.SplitSeq(rel, "/") {
		cur = path.Join(cur, elem)
		fi, err := r.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) && flag&(Create|Private) != 0 {
			if err = r.Mkdir(cur, 0o700); err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = r.Lstat(cur)
			}
		} else if err == nil && flag&Private != 0 && fi.IsDir() {
			err = chmodDir(r, cur, fi)
		}
		if err != nil {
			return nil, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, reason(ErrLink, cur+" is a symbolic link")
		case !fi.IsDir():
			return nil, reason(fs.ErrInvalid, cur+" is not a folder")
		}
		last = fi
	}
	if last == nil {
		return r.Lstat(".")
	}
	return last, nil
}

// chmodDir makes the folder name private through its opened handle, after
// checking the handle is the folder that was checked.
func chmodDir(r *os.Root, name string, want fs.FileInfo) error {
	h, err := r.OpenFile(name, openFlags, 0)
	if err != nil {
		return err
	}
	defer h.Close()
	got, err := h.Stat()
	if err != nil {
		return err
	}
	if !got.IsDir() || !os.SameFile(want, got) {
		return errChanged
	}
	if got.Mode().Perm() == 0o700 {
		return nil
	}
	return h.Chmod(0o700)
}

// Close releases the folder handle.
func (d *Dir) Close() error {
	if err := d.root.Close(); err != nil {
		return ownedError("close", d.name, err)
	}
	return nil
}

// Name returns the name errors give the folder: its path from .agentero
// on, or its last element for a folder outside a Vault.
func (d *Dir) Name() string { return d.name }

// path returns how errors name the file rel of the folder.
func (d *Dir) path(rel string) string {
	if rel == "." {
		return d.name
	}
	return d.name + "/" + rel
}

// cleanOwned validates the name of a file in a Dir. Unlike Clean it allows
// hidden names (temporary files are hidden) but nothing that leaves the
// folder.
func cleanOwned(name string) (string, error) {
	switch {
	case name == "" || name == ".":
		return "", reason(fs.ErrInvalid, "empty name")
	case len(name) > maxPathLen:
		return "", reason(fs.ErrInvalid, "name too long")
	case strings.IndexByte(name, 0) >= 0, strings.IndexByte(name, '\\') >= 0, !utf8.ValidString(name):
		return "", reason(fs.ErrInvalid, "invalid name")
	case name[0] == '/' || isDrive(name):
		return "", reason(ErrOutside, "absolute path")
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == ".." {
			return "", reason(ErrOutside, "'..' in path")
		}
	}
	return path.Clean(name), nil
}

// file resolves the file name: its parent folders must be real folders
// (created when create is set) and the name itself, if it exists, a regular
// file. info is nil when the file does not exist.
func (d *Dir) file(op, name string, create bool) (rel string, info fs.FileInfo, err error) {
	rel, err = cleanOwned(name)
	if err != nil {
		return "", nil, &fs.PathError{Op: op, Path: d.path(echo(name)), Err: err}
	}
	if dir := path.Dir(rel); dir != "." {
		flag := DirFlag(0)
		if create {
			flag = Create
		}
		if _, err := walkDirs(d.root, dir, flag); err != nil {
			return "", nil, ownedError(op, d.path(rel), err)
		}
	}
	fi, err := d.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rel, nil, nil
	case err != nil:
		return "", nil, ownedError(op, d.path(rel), err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", nil, &fs.PathError{Op: op, Path: d.path(rel), Err: ErrLink}
	case !fi.Mode().IsRegular():
		return "", nil, &fs.PathError{Op: op, Path: d.path(rel), Err: ErrNotRegular}
	}
	return rel, fi, nil
}

// checkOpened keeps h only if it is the regular file want (the Lstat made
// before the open); on a mismatch h is closed.
func (d *Dir) checkOpened(op, rel string, h *os.File, want fs.FileInfo) (*File, error) {
	got, err := h.Stat()
	if err == nil && !got.Mode().IsRegular() {
		err = ErrNotRegular
	} else if err == nil && !os.SameFile(want, got) {
		err = errChanged
	}
	if err != nil {
		h.Close()
		return nil, ownedError(op, d.path(rel), err)
	}
	return &File{f: h, path: d.path(rel)}, nil
}

// Open opens the regular file name for reading, without blocking.
func (d *Dir) Open(name string) (*File, error) {
	return reopen(func() (*File, error) { return d.open(name) })
}

func (d *Dir) open(name string) (*File, error) {
	rel, fi, err := d.file("open", name, false)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, &fs.PathError{Op: "open", Path: d.path(rel), Err: fs.ErrNotExist}
	}
	if testHookChecked != nil {
		testHookChecked(rel)
	}
	h, err := d.root.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, ownedError("open", d.path(rel), err)
	}
	return d.checkOpened("open", rel, h, fi)
}

// ReadFile returns the content of the regular file name, refusing one
// larger than max bytes (DefaultMax when max <= 0) with ErrTooLarge.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	h, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return readCapped(h, max)
}

// OpenAppend opens the regular file name for appending, creating it (mode
// 0600, and its missing parent folders 0700) when it does not exist. Each
// Write of the returned File is one write(2) at the file's end; the File can
// also be read (ReadAt), as a locked log is.
func (d *Dir) OpenAppend(name string) (*File, error) {
	rel, _, err := d.file("open", name, true)
	if err != nil {
		return nil, err
	}
	h, err := d.root.OpenFile(rel, appendFlags, 0o600)
	if err != nil {
		return nil, ownedError("open", d.path(rel), err)
	}
	// The open may have created the file, or followed a link made since
	// the check: keep it only if the name is now this regular file.
	fi, err := d.root.Lstat(rel)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		err = ErrLink
	}
	if err != nil {
		h.Close()
		return nil, ownedError("open", d.path(rel), err)
	}
	return d.checkOpened("open", rel, h, fi)
}

// WriteFile writes data to name atomically: a temporary file in the same
// folder (mode 0600), synced, then renamed over name, so a reader sees the
// old file or the whole new one. Missing parent folders are created 0700. A
// link, FIFO or other file at name is replaced, never followed or opened.
func (d *Dir) WriteFile(name string, data []byte) error {
	return d.write(name, data)
}

func (d *Dir) write(name string, parts ...[]byte) error {
	return d.writeFunc(name, func(w io.Writer) error {
		for _, p := range parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeFunc is write for a file whose bytes fill writes to w.
func (d *Dir) writeFunc(name string, fill func(w io.Writer) error) error {
	rel, err := cleanOwned(name)
	if err != nil {
		return &fs.PathError{Op: "write", Path: d.path(echo(name)), Err: err}
	}
	dir := path.Dir(rel)
	if dir != "." {
		if _, err := walkDirs(d.root, dir, Create); err != nil {
			return ownedError("write", d.path(rel), err)
		}
	}
	if fi, err := d.root.Lstat(rel); err == nil && fi.IsDir() {
		return &fs.PathError{Op: "write", Path: d.path(rel), Err: reason(fs.ErrInvalid, "a folder is in the way")}
	}
	tmp := tempName()
	h, err := d.root.OpenFile(tmp, createFlags, 0o600)
	if err != nil {
		return ownedError("write", d.path(rel), err)
	}
	err = fill(h)
	if err == nil {
		err = h.Sync()
	}
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, rel)
	}
	if err != nil {
		d.root.Remove(tmp)
		return ownedError("write", d.path(rel), err)
	}
	return nil
}

// Temporary files of the atomic writer are named .tmp-<pid>-<random>, in
// the Dir's own folder whatever folder below it the file is renamed into,
// so that one listing finds the ones a writer killed before its rename
// left (see RemoveStaleTemps).
const tempPrefix = ".tmp-"

// StaleTemp is the age after which a temporary file is removed even when
// the process named in it still runs (a reused pid, or a writer on another
// machine sharing the folder): a live writer writes and renames in well
// under a minute.
const StaleTemp = 15 * time.Minute

func tempName() string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return tempPrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
}

// tempStale reports whether a temporary file of the atomic writer is left
// over: its writer (the pid in its name) is gone from this machine, or it
// was last written StaleTemp ago. A file whose name holds no pid (an older
// writer's) is judged by age alone.
func tempStale(name string, mtime time.Time, now time.Time) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return false
	}
	if now.Sub(mtime) >= StaleTemp {
		return true
	}
	pid, _, ok := strings.Cut(rest, "-")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	return err == nil && n != os.Getpid() && processGone(n)
}

// RemoveStaleTemps removes from d's folder the temporary files that an
// atomic write interrupted before its rename (a process killed, a machine
// that lost power) left behind, and returns how many it removed. Only
// stale ones go (see StaleTemp): a live process's write in progress, in
// this process or another of this machine sharing the cache, is left
// alone. (A writer on another machine sharing the folder over a network
// file system has a pid that means nothing here: its write in progress may
// be removed and then fails, which for a cache costs speed only.) Links
// and folders of that name are not touched; errors only mean fewer
// removed.
func (d *Dir) RemoveStaleTemps() int {
	h, err := d.root.OpenFile(".", openFlags, 0)
	if err != nil {
		return 0
	}
	defer h.Close()
	des, err := h.ReadDir(-1)
	if err != nil {
		return 0
	}
	now, n := time.Now(), 0
	for _, de := range des {
		if !de.Type().IsRegular() || !strings.HasPrefix(de.Name(), tempPrefix) {
			continue
		}
		fi, err := de.Info()
		if err != nil || !tempStale(de.Name(), fi.ModTime(), now) {
			continue
		}
		if d.root.Remove(de.Name()) == nil {
			n++
		}
	}
	return n
}

// Remove removes the file name (a link is removed, not followed). A missing
// file is not an error.
func (d *Dir) Remove(name string) error {
	rel, err := cleanOwned(name)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: d.path(echo(name)), Err: err}
	}
	if err := d.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ownedError("remove", d.path(rel), err)
	}
	return nil
}

// OpenFile opens the file at path, an absolute path, through a Dir for its
// folder (see OpenDir for the rules): for reading (os.O_RDONLY) or for
// appending (os.O_WRONLY|os.O_APPEND|os.O_CREATE, creating missing folders;
// os.O_RDWR in place of os.O_WRONLY also allows reading, as a log that is
// locked, read and appended to needs). Other flags are refused.
func OpenFile(file string, flag int) (*File, error) {
	var df DirFlag
	switch flag {
	case os.O_RDONLY:
	case os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_RDWR | os.O_APPEND | os.O_CREATE:
		df = Create
	default:
		return nil, &fs.PathError{Op: "open", Path: filepath.Base(file), Err: reason(fs.ErrInvalid, "unsupported flags")}
	}
	d, err := OpenDir(filepath.Dir(file), df)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if df == Create {
		return d.OpenAppend(filepath.Base(file))
	}
	return d.Open(filepath.Base(file))
}

// ownedError is pathError for a Dir: the os layer's (absolute) paths are
// dropped, and os.Root's escape error becomes ErrLink, since the only way
// out of a Dir is a link.
func ownedError(op, p string, cause error) error {
	cause = innermost(cause)
	if cause != nil && cause.Error() == errPathEscapes {
		cause = ErrLink
	}
	return &fs.PathError{Op: op, Path: p, Err: cause}
}

// readCapped reads all of h, refusing more than max bytes (DefaultMax when
// max <= 0): before reading when the size is known, else as soon as the
// cap is passed.
func readCapped(h *File, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMax
	}
	fi, err := h.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: h.path, Err: tooLarge(max)}
	}
	// Read into a buffer of the fstat's size and one byte more, so that a
	// file of that size is read without growing it (a bytes.Buffer would
	// double it to keep room for its next read: megabytes copied and
	// cleared for a manifest or a catalogue), and a file that grew since
	// is seen and read on, still refused past the cap.
	buf := make([]byte, 0, fi.Size()+1)
	r := io.LimitReader(h, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > max {
		return nil, &fs.PathError{Op: "read", Path: h.path, Err: tooLarge(max)}
	}
	return buf, nil
}
