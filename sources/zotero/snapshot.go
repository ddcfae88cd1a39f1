package zotero

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go

	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/safefs"
)

// Userdata schema versions this package knows: Zotero 7's (123) to the
// current one's (129).
const (
	minSchema = 123
	maxSchema = 129
)

// copyTries bounds the copies of a database that changes while it is
// copied: a snapshot is taken only when both files kept their stamps over
// the copy, and a database that changed during every one of them is
// errBusy, never read from a copy Zotero wrote into.
const copyTries = 5

// errBusy is a database that changed during every copy of a snapshot.
var errBusy = fmt.Errorf("%w: it changed during each of %d copies (Zotero is writing it); it is read again at the next call", ErrDatabase, copyTries)

// testHookCopied, when set by a test, is called after each file of a
// snapshot is copied, so that a test can write the database mid-copy.
var testHookCopied func(name string)

// Library is one Zotero data directory, read through snapshots of its
// database. It is safe for concurrent use.
type Library struct {
	id               string
	dataDir, baseDir string
	cacheDir         string // "" when there is no cache folder: snapshots go to a temporary one

	mu    sync.Mutex // held while a snapshot is taken
	stamp string
	snap  *Snapshot
	err   error

	pdfs pdfCache
	cur  atomic.Pointer[Snapshot] // the snapshot taken last

	wait    time.Duration // how long a search waits for the index (Options.IndexWait)
	ixOnce  sync.Once
	ix      *libindex.Index // see libIndex
	pendMu  sync.Mutex
	pending map[string]*Snapshot     // items queued for the index, by key: the snapshot of their stamp
	forgot  atomic.Pointer[Snapshot] // the snapshot whose gone items were last dropped from the index

	stampMu   sync.Mutex
	stampSnap *Snapshot        // the snapshot stamps are of
	stamps    map[*Item]string // its part of top-level items' index stamps (see Snapshot.modelStamp)

	saveMu      sync.Mutex // guards the model saved in the background (see saveModel)
	toSave      *Snapshot
	toSaveStamp string
	saving      bool
	bg          sync.WaitGroup

	// calls counts the calls in flight (searches, reads, descriptions),
	// which the index's build and the background OCR yield to.
	calls lowprio.Calls
}

// last returns the snapshot taken last, without taking one.
func (l *Library) last() *Snapshot { return l.cur.Load() }

func newLibrary(id, dataDir, baseDir, cacheDir string) *Library {
	l := &Library{id: id, dataDir: dataDir, baseDir: baseDir, wait: defaultIndexWait}
	if cacheDir != "" {
		l.cacheDir = filepath.Join(cacheDir, id)
	}
	l.pdfs.l = l
	return l
}

// dbFiles are the database's files that a snapshot copies: the -shm file
// is never read (Zotero 10+ keeps none, and the copy rebuilds it).
var dbFiles = []string{"zotero.sqlite", "zotero.sqlite-wal"}

// stampOf returns the size and modification time of the database and its
// write-ahead log ("-" when there is none).
func (l *Library) stampOf() (string, error) {
	s := ""
	for i, name := range dbFiles {
		st, err := os.Stat(filepath.Join(l.dataDir, name))
		switch {
		case err == nil && st.Mode().IsRegular():
			s += fmt.Sprintf("%d:%d;", st.Size(), st.ModTime().UnixNano())
		case i > 0 && errors.Is(err, fs.ErrNotExist):
			s += "-;"
		case err == nil:
			return "", fmt.Errorf("%w: %s is not a regular file", ErrDatabase, name)
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w: the data directory holds no zotero.sqlite", ErrDatabase)
		default:
			return "", fmt.Errorf("%w: %s cannot be read", ErrDatabase, name)
		}
	}
	return s, nil
}

// Snapshot returns the library as it is now: the snapshot taken last when
// neither file of the database changed since, else a new one.
func (l *Library) Snapshot(ctx context.Context) (*Snapshot, error) {
	// Every call of a source starts here: one whose context has ended
	// reads nothing, not even the remembered snapshot.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stamp, err := l.stampOf()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if stamp == l.stamp && (l.snap != nil || l.err != nil) {
		return l.snap, l.err
	}
	if l.snap == nil && l.err == nil {
		// A new process: the model of the last snapshot taken, when the
		// database has not changed since (see saveModel).
		if snap, err := l.loadModel(stamp); err == nil {
			l.stamp, l.snap = stamp, snap
			l.cur.Store(snap)
			return snap, nil
		}
	}
	snap, stamp, err := l.take(ctx, stamp)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	l.stamp, l.snap, l.err = stamp, snap, err
	if errors.Is(err, errBusy) {
		// Not kept: the next call copies again, even if Zotero wrote
		// nothing since its last write.
		l.stamp = ""
	}
	if snap != nil {
		l.cur.Store(snap)
	}
	if err != nil && l.snap == nil {
		return nil, err
	}
	return snap, err
}

// take copies the database into the cache and reads the copy, retrying
// while Zotero writes it.
func (l *Library) take(ctx context.Context, stamp string) (*Snapshot, string, error) {
	dir := l.cacheDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "researchctx-zotero-")
		if err != nil {
			return nil, stamp, fmt.Errorf("%w: no folder to copy it into", ErrDatabase)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	removeStale(dir)
	src, err := safefs.Open(l.dataDir)
	if err != nil {
		return nil, stamp, fmt.Errorf("%w: the data directory cannot be opened", ErrDatabase)
	}
	defer src.Close()
	for try := 0; ; try++ {
		if err := ctx.Err(); err != nil {
			return nil, stamp, err
		}
		snapDir, err := l.copyDB(src, dir)
		if err != nil {
			return nil, stamp, err
		}
		after, err := l.stampOf()
		if err != nil {
			os.RemoveAll(snapDir)
			return nil, stamp, err
		}
		if after != stamp {
			// Zotero wrote during the copy, which may hold half of a
			// write: take it again, or give up.
			os.RemoveAll(snapDir)
			stamp = after
			if try+1 == copyTries {
				return nil, stamp, errBusy
			}
			time.Sleep(time.Duration(10*(try+1)) * time.Millisecond)
			continue
		}
		snap, err := load(ctx, filepath.Join(snapDir, dbFiles[0]))
		os.RemoveAll(snapDir)
		if err == nil {
			snap.lib = l
			l.saveModel(snap, stamp)
		}
		return snap, stamp, err
	}
}

// staleAfter is how old a snapshot folder of another process is when it
// is taken for left behind (by a process that ended while reading it): a
// copy is read in well under that.
const staleAfter = 10 * time.Minute

// removeStale removes the snapshot folders under dir that a process left
// behind, so that no copy of the library's database stays in the cache.
func removeStale(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "snapshot-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleAfter {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// copyDB copies the database's files from the data directory into a new
// folder under dir, reading them without a lock, and returns the folder.
func (l *Library) copyDB(src *safefs.FS, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: the cache folder cannot be made", ErrDatabase)
	}
	snapDir, err := os.MkdirTemp(dir, "snapshot-")
	if err != nil {
		return "", fmt.Errorf("%w: the cache folder cannot be written", ErrDatabase)
	}
	for i, name := range dbFiles {
		in, err := src.Open(name)
		if i > 0 && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			os.RemoveAll(snapDir)
			return "", fmt.Errorf("%w: %s cannot be opened for reading", ErrDatabase, name)
		}
		out, err := os.OpenFile(filepath.Join(snapDir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			os.RemoveAll(snapDir)
			return "", fmt.Errorf("%w: %s could not be copied", ErrDatabase, name)
		}
		if testHookCopied != nil {
			testHookCopied(name)
		}
	}
	return snapDir, nil
}

// load reads a copied database whole into a Snapshot.
func load(ctx context.Context, file string) (*Snapshot, error) {
	// The copy is the SDK's own: opening it read-write lets SQLite replay
	// the write-ahead log copied beside it; query_only keeps it unchanged.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(file)+"?_pragma=query_only(1)&_pragma=busy_timeout(0)")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDatabase, sqlReason(err))
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var v string
	if err := db.QueryRowContext(ctx, `SELECT version FROM version WHERE schema = 'userdata'`).Scan(&v); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %s", ErrDatabase, sqlReason(err))
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < minSchema || n > maxSchema {
		return nil, fmt.Errorf("%w: userdata schema %q; this version reads %d (Zotero 7) to %d", ErrSchema, v, minSchema, maxSchema)
	}
	s, err := readAll(ctx, db)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %s", ErrDatabase, sqlReason(err))
	}
	s.schema = n
	return s, nil
}

// sqlReason says in a few words why SQLite failed, without a path.
func sqlReason(err error) string {
	msg := err.Error()
	switch {
	case containsAny(msg, "not a database", "file is encrypted"):
		return "not a SQLite database"
	case containsAny(msg, "malformed", "corrupt", "disk image"):
		return "the database is damaged or truncated"
	case containsAny(msg, "no such table", "no such column"):
		return "not a Zotero database (a table or column is missing)"
	case containsAny(msg, "locked", "busy"):
		return "the database is locked"
	}
	return "it cannot be read"
}

// fileHash is a short hash of a string, for cache names.
func fileHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
