package sources

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/vault"
)

// Directory limits.
const (
	// DefaultScanFiles is how many files a directory search reads when the
	// query sets no cap.
	DefaultScanFiles = 10000
	// maxScanDepth bounds how deep a directory search descends.
	maxScanDepth = 16
	// restamp is how long a directory's file list is trusted before it is
	// walked again to see whether anything changed.
	restamp = 2 * time.Second
)

// Directory is a granted folder. Its text files, at any depth within the scan
// caps, are searched; the papers inside it (an organisation folder of papers)
// are searched through their paper sources. Reading it lists one level;
// reading a file inside it gives that file's text.
type Directory struct {
	lib *Library
	ref string
	idx lazyIndex

	mu        sync.Mutex
	scanned   time.Time
	scanCap   int
	stamp     string
	files     []string // vault paths of the text candidates
	papers    []string // refs of paper units inside
	truncated bool
}

func (l *Library) newDirectory(ref string) (*Directory, error) {
	d := &Directory{lib: l, ref: ref}
	if p := l.cachePath("index", cacheName(KindDirectory, ref)); p != "" {
		d.idx.cache.path = p
	}
	return d, nil
}

// Info implements Source.
func (d *Directory) Info() Info {
	return Info{Ref: d.ref, Kind: KindDirectory, Title: path.Base(d.ref)}
}

// inside returns p relative to the directory, or an ErrOutside error.
func (d *Directory) inside(p string) (string, error) {
	switch {
	case p == "" || p == d.ref:
		return ".", nil
	case d.ref == ".":
		return p, nil
	case strings.HasPrefix(p, d.ref+"/"):
		return p[len(d.ref)+1:], nil
	}
	return "", fmt.Errorf("%w: %s", ErrOutside, p)
}

// view returns the safe view confined to the directory: symbolic links that
// leave it are refused even when they stay inside the Vault.
func (d *Directory) view() (*safefs.FS, error) {
	if d.ref == "." {
		return d.lib.v.FS(), nil
	}
	sub, err := d.lib.v.FS().Sub(d.ref)
	if err != nil {
		return nil, fsErr(err)
	}
	return sub, nil
}

func closeView(d *Directory, f *safefs.FS) {
	if d.ref != "." {
		f.Close()
	}
}

// Read implements Source: a file inside the directory (or inside a paper in
// it). The directory itself, or a folder in it, is an ErrIsDirectory error:
// list it instead.
func (d *Directory) Read(ctx context.Context, p string) (*Document, error) {
	rel, err := d.inside(p)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, fmt.Errorf("%w: %s", ErrIsDirectory, d.ref)
	}
	full := path.Join(d.ref, rel)
	if paper, err := d.paperAt(ctx, full); err != nil || paper != nil {
		if err != nil {
			return nil, err
		}
		src, err := d.lib.paperSource(ctx, paper.Ref)
		if err != nil {
			return nil, err
		}
		if full == paper.Ref {
			full = ""
		}
		return src.Read(ctx, full)
	}
	f, err := d.view()
	if err != nil {
		return nil, err
	}
	defer closeView(d, f)
	st, err := f.Stat(rel)
	if err != nil {
		return nil, fsErr(err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrIsDirectory, full)
	}
	text, err := f.ReadText(rel, 0)
	if err != nil {
		return nil, fsErr(err)
	}
	return textDocument(full, text), nil
}

// paperAt returns the paper unit inside the directory that contains p.
func (d *Directory) paperAt(ctx context.Context, p string) (*vault.Paper, error) {
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	paper := cat.PaperOf(p)
	if paper == nil {
		return nil, nil
	}
	if _, err := d.inside(paper.Ref); err != nil || paper.Ref == d.ref {
		// The directory is inside the paper, or is the paper: plain files.
		return nil, nil
	}
	return paper, nil
}

// List implements Lister: one level, folders first, then files, each in
// name order; hidden entries and .agentero never appear.
func (d *Directory) List(ctx context.Context, p string, max int) ([]Entry, bool, error) {
	rel, err := d.inside(p)
	if err != nil {
		return nil, false, err
	}
	f, err := d.view()
	if err != nil {
		return nil, false, err
	}
	defer closeView(d, f)
	st, err := f.Stat(rel)
	if err != nil {
		return nil, false, fsErr(err)
	}
	if !st.IsDir() {
		return nil, false, fmt.Errorf("%w: %s is not a folder", ErrUnsupported, path.Join(d.ref, rel))
	}
	des, err := f.ReadDir(rel)
	if err != nil {
		return nil, false, fsErr(err)
	}
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, false, err
	}
	entries := make([]Entry, 0, len(des))
	for _, de := range des {
		full := path.Join(d.ref, rel, de.Name())
		e := Entry{Name: de.Name(), Path: full, Kind: KindFile}
		switch {
		case de.IsDir() && cat.Paper(full) != nil:
			e.Kind = KindPaper
		case de.IsDir():
			e.Kind = KindDirectory
		default:
			if info, err := de.Info(); err == nil {
				e.Size = info.Size()
			}
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		di, dj := entries[i].Kind != KindFile, entries[j].Kind != KindFile
		if di != dj {
			return di
		}
		return entries[i].Name < entries[j].Name
	})
	truncated := false
	if max > 0 && len(entries) > max {
		entries, truncated = entries[:max], true
	}
	return entries, truncated, nil
}

// Search implements Source: the text files of the directory through its
// index, and the papers inside it through theirs, merged by score.
func (d *Directory) Search(ctx context.Context, q Query) (*Results, error) {
	scanCap := q.ScanFiles
	if scanCap <= 0 {
		scanCap = DefaultScanFiles
	}
	stamp, files, papers, truncated, err := d.scan(ctx, scanCap)
	if err != nil {
		return nil, err
	}
	total := len(files) + len(papers)
	ui, err := d.idx.get(ctx, stamp, func(ctx context.Context) ([]unit, error) { return d.units(ctx, files, total) })
	if err != nil {
		return nil, err
	}
	res := ui.search(q)
	res.Truncated = truncated
	for i, ref := range papers {
		d.progress(len(files)+i, total)
		src, err := d.lib.paperSource(ctx, ref)
		if err != nil {
			continue
		}
		pr, err := src.Search(ctx, q)
		if err != nil {
			continue
		}
		res.Hits = append(res.Hits, pr.Hits...)
		res.Total += pr.Total
		res.Truncated = res.Truncated || pr.Truncated
	}
	d.progress(total, total)
	sortHits(res.Hits)
	if len(res.Hits) > q.Limit && q.Limit > 0 {
		res.Hits = res.Hits[:q.Limit]
	}
	return res, nil
}

// sortHits orders hits by score, then path and page, so merged results are
// deterministic.
func sortHits(h []Hit) {
	sort.SliceStable(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		if h[i].Path != h[j].Path {
			return h[i].Path < h[j].Path
		}
		return h[i].Page < h[j].Page
	})
}

// scan lists the directory's text candidates and papers, and stamps them by
// path, size and modification time. The result is reused for a short while
// so a burst of searches walks the tree once.
func (d *Directory) scan(ctx context.Context, scanCap int) (string, []string, []string, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stamp != "" && d.scanCap == scanCap && time.Since(d.scanned) < restamp {
		return d.stamp, d.files, d.papers, d.truncated, nil
	}
	f, err := d.view()
	if err != nil {
		return "", nil, nil, false, err
	}
	defer closeView(d, f)
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return "", nil, nil, false, err
	}
	var files, papers, parts []string
	parts = append(parts, "dir/1", d.ref, strconv.Itoa(scanCap))
	truncated, err := f.Walk(".", maxScanDepth, scanCap, func(rel string, de fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		full := path.Join(d.ref, rel)
		if de.IsDir() {
			if cat.Paper(full) != nil && full != d.ref {
				papers = append(papers, full)
				return fs.SkipDir
			}
			return nil
		}
		if binaryExt[strings.ToLower(path.Ext(rel))] {
			return nil
		}
		info, err := de.Info()
		if err != nil || info.Size() > safefs.DefaultMax || info.Size() == 0 {
			return nil
		}
		files = append(files, full)
		parts = append(parts, full, strconv.FormatInt(info.Size(), 10), strconv.FormatInt(info.ModTime().UnixNano(), 10))
		return nil
	})
	if err != nil {
		return "", nil, nil, false, err
	}
	d.stamp, d.files, d.papers, d.truncated = stampOf(parts...), files, papers, truncated
	d.scanned, d.scanCap = time.Now(), scanCap
	return d.stamp, files, papers, truncated, nil
}

// progress reports to the library's Progress hook, if any.
func (d *Directory) progress(done, total int) {
	if f := d.lib.progress; f != nil {
		f(d.ref, done, total)
	}
}

// units reads the directory's text files into search units; binary files
// found by content are skipped. total is the count of all the search's
// items, for progress.
func (d *Directory) units(ctx context.Context, files []string, total int) ([]unit, error) {
	f, err := d.view()
	if err != nil {
		return nil, err
	}
	defer closeView(d, f)
	units := make([]unit, 0, len(files))
	for i, full := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d.progress(i, total)
		rel, _ := d.inside(full)
		text, err := f.ReadText(rel, 0)
		if err != nil {
			continue
		}
		units = append(units, documentUnits(textDocument(full, text))...)
	}
	return units, nil
}
