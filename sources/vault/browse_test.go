package vault_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// browseVault is the sample vault with what a host must never be shown
// beside it: a hidden note, the SDK's private folder, and symbolic links
// out of the Vault and inside it.
func browseVault(t *testing.T) (root string, l *vault.Library) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.md")
	for name, data := range map[string]string{
		outside: "# secret\n",
		filepath.Join(root, "notes", ".hidden.md"):     "hidden\n",
		filepath.Join(root, ".agentero", "private.md"): "private\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(root, "notes", "out.md"):         outside,
		filepath.Join(root, "notes", "inside-link.md"): "ideas.txt",
		filepath.Join(root, "notes", "linkdir"):        filepath.Join(root, "papers"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	l, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return root, l
}

// noRoot fails the test when err names the Vault's absolute folder.
func noRoot(t *testing.T, root string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), filepath.ToSlash(root)) {
		t.Errorf("error %q names the vault's folder", err)
	}
}

func TestCleanPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		err      error
	}{
		{in: "papers//2401.01234/./", want: "papers/2401.01234"},
		{in: ".", want: "."},
		{in: "notes/meeting 2024-03-12.md", want: "notes/meeting 2024-03-12.md"},
		{in: "../secret.md", err: sources.ErrOutside},
		{in: "notes/../../secret.md", err: sources.ErrOutside},
		{in: "/etc/passwd", err: sources.ErrOutside},
		{in: "", err: sources.ErrNotFound},
		{in: "notes/.hidden.md", err: sources.ErrNotFound},
		{in: ".agentero/private.md", err: sources.ErrNotFound},
		{in: "notes/ideas.txt\x00.pdf", err: sources.ErrNotFound},
		{in: `..\..\secret.md`, err: sources.ErrNotFound},
		{in: "notes/\xff.md", err: sources.ErrNotFound},
	} {
		got, err := vault.CleanPath(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("CleanPath(%q) = %q, %v; want an error wrapping %v", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLibraryPapers(t *testing.T) {
	_, l := browseVault(t)
	papers, err := l.Papers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type paper struct{ Path, PDF string }
	var got []paper
	for _, p := range papers {
		got = append(got, paper{p.Path, p.PDF})
		if p.Title == "" {
			t.Errorf("%s has no title", p.Path)
		}
		// The title a host lists is the one Stat gives for the folder.
		if it, err := l.Stat(context.Background(), p.Path); err != nil || it.Paper == nil || it.Paper.Title != p.Title {
			t.Errorf("Stat(%s) = %+v, %v; want the paper titled %q", p.Path, it, err, p.Title)
		}
	}
	want := []paper{
		{"papers/2401.01234", "papers/2401.01234/2401.01234.pdf"},
		{"papers/2403.05678", "papers/2403.05678/2403.05678.pdf"},
		{"papers/2406.09876", "papers/2406.09876/2406.09876.pdf"},
		{"papers/local-window-eval", "papers/local-window-eval/local-window-eval.PDF"},
		{"papers/vision/patch-tokens", ""},
		{"papers/vision/resnet-like", "papers/vision/resnet-like/paper.pdf"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Papers (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Papers(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Papers with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestLibraryWalk(t *testing.T) {
	root, l := browseVault(t)
	ctx := context.Background()
	type item struct {
		Kind  grant.Kind
		Paper string
	}
	walk := func(p string, maxDepth, maxFiles int, skip string) (map[string]item, bool, error) {
		got := map[string]item{}
		truncated, err := l.Walk(ctx, p, maxDepth, maxFiles, func(it *vault.Item) error {
			in := ""
			if it.Paper != nil {
				in = it.Paper.Path
			}
			got[it.Path] = item{it.Kind, in}
			if it.Path == skip {
				return fs.SkipDir
			}
			return nil
		})
		return got, truncated, err
	}

	all, truncated, err := walk(".", 0, 0, "")
	if err != nil || truncated {
		t.Fatalf("Walk: truncated %v, %v", truncated, err)
	}
	for p, want := range map[string]item{
		"notes":                               {grant.KindDirectory, ""},
		"notes/ideas.txt":                     {grant.KindFile, ""},
		"papers/vision":                       {grant.KindDirectory, ""},
		"papers/2401.01234":                   {grant.KindPaper, "papers/2401.01234"},
		"papers/2401.01234/NOTES.md":          {grant.KindFile, "papers/2401.01234"},
		"papers/2401.01234/source":            {grant.KindDirectory, "papers/2401.01234"},
		"papers/vision/resnet-like/paper.pdf": {grant.KindFile, "papers/vision/resnet-like"},
	} {
		if diff := cmp.Diff(want, all[p]); diff != "" {
			t.Errorf("Walk's %s (-want +got):\n%s", p, diff)
		}
	}
	for p := range all {
		if strings.Contains(p, "/.") || strings.HasPrefix(p, ".") || strings.Contains(p, "link") || strings.HasSuffix(p, "out.md") {
			t.Errorf("Walk yields %s, which the tools would not read", p)
		}
	}

	// Its bounds and fs.SkipDir.
	if got, truncated, err := walk(".", 1, 0, ""); err != nil || !truncated || len(got) != 3 {
		t.Errorf("Walk to depth 1: %v, truncated %v, %v; want notes, papers and reading-list, truncated", got, truncated, err)
	}
	files := 0
	if got, truncated, err := walk("notes", 0, 2, ""); err != nil || !truncated {
		t.Errorf("Walk of 2 files: truncated %v, %v; want truncated", truncated, err)
	} else {
		for _, it := range got {
			if it.Kind == grant.KindFile {
				files++
			}
		}
		if files != 2 {
			t.Errorf("Walk of 2 files yields %d files: %v", files, got)
		}
	}
	if got, _, err := walk("papers", 0, 0, "papers/2401.01234"); err != nil {
		t.Error(err)
	} else if _, ok := got["papers/2401.01234/NOTES.md"]; ok {
		t.Error("Walk descends into a folder its function skipped")
	}

	// Bad starts, and the context.
	for p, want := range map[string]error{"../x": sources.ErrOutside, "notes/linkdir": sources.ErrOutside, "missing": sources.ErrNotFound, ".agentero": sources.ErrNotFound} {
		_, err := l.Walk(ctx, p, 0, 0, func(*vault.Item) error { return nil })
		if !errors.Is(err, want) {
			t.Errorf("Walk(%q) = %v, want an error wrapping %v", p, err, want)
		}
		noRoot(t, root, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	_, err = l.Walk(cctx, ".", 0, 0, func(*vault.Item) error {
		n++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("Walk cancelled at its first item: %d items, %v; want 1 and context.Canceled", n, err)
	}
}

func TestLibraryOpenFile(t *testing.T) {
	root, l := browseVault(t)
	ctx := context.Background()
	for _, tt := range []struct {
		path string
		err  error
	}{
		{path: "notes/ideas.txt"},
		{path: "papers/2401.01234/2401.01234.pdf"},
		{path: "notes/meeting 2024-03-12.md"},
		{path: "notes", err: sources.ErrNotFound},
		{path: "notes/missing.md", err: sources.ErrNotFound},
		{path: "notes/.hidden.md", err: sources.ErrNotFound},
		{path: ".agentero/private.md", err: sources.ErrNotFound},
		{path: "notes/ideas.txt\x00.pdf", err: sources.ErrNotFound},
		{path: "../secret.md", err: sources.ErrOutside},
		{path: filepath.ToSlash(filepath.Join(root, "notes", "ideas.txt")), err: sources.ErrOutside},
		{path: "notes/out.md", err: sources.ErrOutside},
		{path: "notes/inside-link.md", err: sources.ErrOutside},
		{path: "notes/linkdir/2401.01234/NOTES.md", err: sources.ErrOutside},
	} {
		f, err := l.OpenFile(ctx, tt.path)
		noRoot(t, root, err)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("OpenFile(%q): %v; want an error wrapping %v", tt.path, err, tt.err)
			}
			if f != nil {
				f.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenFile(%q): %v", tt.path, err)
			continue
		}
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(tt.path)))
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end, then again from an offset, as a server of
		// ranges does.
		got, err := io.ReadAll(f)
		if err != nil || string(got) != string(want) {
			t.Errorf("OpenFile(%q) reads %d bytes, %v; want the file's %d", tt.path, len(got), err, len(want))
		}
		if _, err := f.Seek(1, io.SeekStart); err != nil {
			t.Errorf("Seek: %v", err)
		} else if rest, err := io.ReadAll(f); err != nil || string(rest) != string(want[1:]) {
			t.Errorf("OpenFile(%q) after Seek(1) reads %d bytes, %v", tt.path, len(rest), err)
		}
		if st, err := f.Stat(); err != nil || st.Size() != int64(len(want)) || !st.Mode().IsRegular() {
			t.Errorf("OpenFile(%q).Stat() = %v, %v", tt.path, st, err)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.OpenFile(cctx, "notes/ideas.txt"); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenFile with a cancelled context: %v, want context.Canceled", err)
	}
}
