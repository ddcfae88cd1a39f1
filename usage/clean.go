package usage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
)

// removing prefixes a runtime folder being removed by Clean. '+' is not
// allowed in a runtime id, so the name never clashes with a host's folder.
const removing = "+removing-"

// Clean removes the runtime folders under {vault}/.agentero/context-sessions
// that no conversation has used for olderThan: neither their grant nor their
// usage log changed since. It returns the runtime ids it removed, sorted.
//
// A folder in use is never removed: one whose usage log is locked right now
// (a server recording a call) or holds a budget reservation of a process
// that still runs (or of another machine, which cannot be checked). Nothing
// is followed: a symbolic link on the way to the sessions folder is an
// error, and an entry that is a link, a file or not a runtime id is left as
// it is. A folder is renamed aside under the usage log's lock before it is
// removed, so a host that writes a new grant for the runtime at that moment
// gets a fresh folder rather than a half-removed one.
//
// Pick olderThan well above the longest pause in a conversation (days, not
// minutes): a server that idles longer than that loses its grant and fails
// closed, as it does for a changed grant. A Vault without the folder has
// nothing to clean. Errors name paths from .agentero on; a Vault that
// cannot be opened is named as the caller gave it, which is the caller's
// own path, so that a host can tell which of its Vaults it was.
func Clean(vault string, olderThan time.Duration) ([]string, error) {
	if !filepath.IsAbs(vault) {
		return nil, fmt.Errorf("cleaning grants: vault must be an absolute path")
	}
	if olderThan <= 0 {
		return nil, fmt.Errorf("cleaning grants: the age must be positive, got %v", olderThan)
	}
	root, err := openSessions(vault)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	d, err := root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("cleaning grants: %s: %w", sessionsName, errors.Unwrap(err))
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("cleaning grants: reading %s: %w", sessionsName, errors.Unwrap(err))
	}
	cutoff := time.Now().Add(-olderThan)
	var removed []string
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if e.Type() != fs.ModeDir {
			continue // a link, a file: not a runtime folder of ours
		}
		if strings.HasPrefix(name, removing) {
			// Left by a Clean that was interrupted.
			if err := root.RemoveAll(name); err != nil {
				errs = append(errs, cleanError(name, err))
			}
			continue
		}
		if grant.CheckRuntimeID(name) != nil {
			continue
		}
		ok, err := cleanRuntime(root, vault, name, cutoff)
		if err != nil {
			errs = append(errs, cleanError(name, err))
		}
		if ok {
			removed = append(removed, name)
		}
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}

// sessionsName is how errors name the sessions folder.
var sessionsName = agentero.Sessions

// sessionsDir is the sessions folder, relative to the Vault root.
var sessionsDir = filepath.FromSlash(agentero.Sessions)

func cleanError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cleaning grants: %s/%s: %w", sessionsName, name, err)
}

// openSessions opens the Vault's sessions folder as an os.Root, every
// element from .agentero down a real folder.
func openSessions(vault string) (*os.Root, error) {
	v, err := os.OpenRoot(vault)
	if err != nil {
		// Not wrapped: a missing Vault is an error, a missing sessions
		// folder is not.
		return nil, fmt.Errorf("cleaning grants: the vault %q cannot be opened: %v", vault, errors.Unwrap(err))
	}
	defer v.Close()
	cur := ""
	var last fs.FileInfo
	for _, elem := range strings.Split(sessionsName, "/") {
		cur = filepath.Join(cur, elem)
		fi, err := v.Lstat(cur)
		if err != nil {
			return nil, fmt.Errorf("cleaning grants: %s: %w", filepath.ToSlash(cur), errors.Unwrap(err))
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			return nil, fmt.Errorf("cleaning grants: %s is not a folder (a symbolic link is never followed)", filepath.ToSlash(cur))
		}
		last = fi
	}
	r, err := v.OpenRoot(sessionsDir)
	if err != nil {
		return nil, fmt.Errorf("cleaning grants: %s: %w", sessionsName, errors.Unwrap(err))
	}
	if got, err := r.Stat("."); err != nil || !os.SameFile(got, last) {
		r.Close()
		return nil, fmt.Errorf("cleaning grants: %s changed while it was opened", sessionsName)
	}
	return r, nil
}

// cleanRuntime removes one runtime folder when it is stale and not in use,
// and reports whether it did.
func cleanRuntime(root *os.Root, vault, name string, cutoff time.Time) (bool, error) {
	if fresh, err := newerThan(root, name, cutoff); err != nil || fresh {
		return false, err
	}
	// Hold the usage log's lock while deciding and renaming aside: a
	// server recording a call holds it, and one that starts a call after
	// the rename finds no grant and fails closed. The log is opened as
	// every usage log is: no link followed, a regular file only, without
	// blocking.
	f, err := openUsage(filepath.Join(vault, sessionsDir, name, grant.UsageFile), os.O_RDONLY)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("the usage log: %w", pe.Err)
		}
		return false, err
	default:
		defer f.Close()
		locked, err := tryLock(f)
		if err != nil {
			return false, err
		}
		if !locked {
			return false, nil // a call is being recorded
		}
		defer unlock(f)
		if held, err := holdsReservation(f); err != nil || held {
			return false, err
		}
	}
	// Checked again under the lock: a call recorded just before it counts.
	if fresh, err := newerThan(root, name, cutoff); err != nil || fresh {
		return false, err
	}
	aside := removing + name
	if err := root.Rename(name, aside); err != nil {
		return false, err
	}
	if err := root.RemoveAll(aside); err != nil {
		return true, err
	}
	return true, nil
}

// newerThan reports whether the runtime folder, or any file in it, was
// modified after cutoff. Entries are Lstat'ed, never followed.
func newerThan(root *os.Root, name string, cutoff time.Time) (bool, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return false, errors.New("not a folder")
	}
	if fi.ModTime().After(cutoff) {
		return true, nil
	}
	d, err := root.Open(name)
	if err != nil {
		return false, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue // the grant and the usage log are regular files
		}
		info, err := root.Lstat(filepath.Join(name, e.Name()))
		if err != nil {
			continue // gone meanwhile
		}
		if info.ModTime().After(cutoff) {
			return true, nil
		}
	}
	return false, nil
}

// holdsReservation reports whether the usage log r holds a reservation
// that was neither settled nor released and whose process may still run,
// as a Log reading it counts them.
func holdsReservation(r io.Reader) (bool, error) {
	l := Open("") // no I/O: only its sums are used
	_, err := scanUsage(r, func(line []byte, ok bool) {
		if ok {
			l.apply(line)
		}
	})
	if err != nil {
		return false, fmt.Errorf("reading the usage log: %w", err)
	}
	return l.holdsLive(), nil
}
