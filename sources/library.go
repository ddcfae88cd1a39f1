package sources

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/vault"
)

// LibraryOptions configure a Library. The zero value is ready to use.
type LibraryOptions struct {
	// CacheDir is where indexes and extracted PDF text are kept between
	// processes. Empty means {vault}/.agentero/cache, the folder the SDK
	// owns; "-" disables the on-disk cache.
	CacheDir string
	// Progress, when set, is called while a directory search works through
	// the directory's items — its text files while their index is built,
	// then the papers inside it — with the directory's ref, how many items
	// are done and how many there are. A host uses it to show progress on
	// a large first-time index. It is called on the searching goroutine
	// and must return quickly.
	Progress func(ref string, done, total int)
}

// Library opens the Vault's sources — papers, directories and plain files —
// and shares what they have in common: the Vault, the PDF text cache and the
// index cache. It is safe for concurrent use, and a source opened twice is
// the same value.
type Library struct {
	v        *vault.Vault
	cacheDir string // "" when disabled
	progress func(ref string, done, total int)

	mu      sync.Mutex
	sources map[string]Source // by kind + "\x00" + path
}

// NewLibrary returns a Library over v.
func NewLibrary(v *vault.Vault, opts *LibraryOptions) *Library {
	l := &Library{v: v, sources: map[string]Source{}}
	dir := ""
	if opts != nil {
		dir = opts.CacheDir
		l.progress = opts.Progress
	}
	switch dir {
	case "":
		l.cacheDir = filepath.Join(v.Root(), ".agentero", "cache")
	case "-":
	default:
		l.cacheDir = dir
	}
	return l
}

// Vault returns the library's Vault.
func (l *Library) Vault() *vault.Vault { return l.v }

// CacheDir returns the folder of the library's on-disk caches, "" when
// they are disabled.
func (l *Library) CacheDir() string { return l.cacheDir }

// Open returns the source of the given kind at a vault-relative path. The
// path must be of that kind now: a paper folder for KindPaper, a folder for
// KindDirectory, a regular file for KindFile. The Vault root itself is not
// a source.
func (l *Library) Open(ctx context.Context, kind Kind, path string) (Source, error) {
	got, clean, err := l.v.Classify(ctx, path)
	if err != nil {
		return nil, err
	}
	if clean == "." {
		// It would grant every paper and note at once; a grant names
		// folders and files inside the Vault.
		return nil, fmt.Errorf("%w: the vault root is not a source", ErrOutside)
	}
	if got != kind {
		return nil, fmt.Errorf("%s: is a %s, not a %s", clean, got, kind)
	}
	key := string(kind) + "\x00" + clean
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.sources[key]; s != nil {
		return s, nil
	}
	var s Source
	switch kind {
	case KindPaper:
		p, err := l.v.Paper(ctx, clean)
		if err != nil {
			return nil, err
		}
		s = l.newPaper(p)
	case KindDirectory:
		d, err := l.newDirectory(clean)
		if err != nil {
			return nil, err
		}
		s = d
	case KindFile:
		s = l.newFile(clean)
	default:
		return nil, fmt.Errorf("%s: unknown source kind %q", clean, kind)
	}
	l.sources[key] = s
	return s, nil
}

// paperSource returns the (shared) source of a library paper.
func (l *Library) paperSource(ctx context.Context, ref string) (*Paper, error) {
	s, err := l.Open(ctx, KindPaper, ref)
	if err != nil {
		return nil, err
	}
	return s.(*Paper), nil
}

// PaperText returns the text of a library paper's PDF pages, in order,
// separated by form feeds; for a paper without a PDF, its PAPER.md. It is the
// hook the citation graph uses to find identifiers in reference sections.
func (l *Library) PaperText(ctx context.Context, p *vault.Paper) (string, error) {
	src, err := l.paperSource(ctx, p.Ref)
	if err != nil {
		return "", err
	}
	doc, err := src.Read(ctx, "")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, part := range doc.Parts {
		if i > 0 {
			b.WriteByte('\f')
		}
		b.WriteString(part.Text)
	}
	return b.String(), nil
}

// cachePath returns the path of a cache file, or "" when caching is off.
func (l *Library) cachePath(parts ...string) string {
	if l.cacheDir == "" {
		return ""
	}
	return filepath.Join(append([]string{l.cacheDir}, parts...)...)
}
