package vault

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
)

// TestPaperStampThroughItsFolder: a paper's stamp, its files stat'ed
// through one handle on its folder, is the stamp of each file stat'ed from
// the Vault's root, whatever the files are: present, missing, in a
// subfolder, a link (refused either way, even one inside the folder), or
// the folder a link or gone.
func TestPaperStampThroughItsFolder(t *testing.T) {
	root := t.TempDir()
	writeVaultFile(t, root, "papers/a/metadata.json", []byte(`{"title":"A paper"}`))
	writeVaultFile(t, root, "papers/a/paper.pdf", []byte("%PDF-1.4 not parsed here"))
	writeVaultFile(t, root, "papers/a/PAPER.md", []byte("# A paper\n\ntext\n"))
	writeVaultFile(t, root, "papers/a/"+MarksFile, []byte(`[]`))
	// A link that stays in the folder: refused all the same.
	if err := os.Symlink(catalog.PaperMDFile, filepath.Join(root, "papers/a", catalog.NotesFile)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	lib := NewLibrary(v, &LibraryOptions{CacheDir: "-"})
	defer lib.Close()
	src, err := lib.Open(context.Background(), grant.KindPaper, "papers/a")
	if err != nil {
		t.Fatal(err)
	}
	s := src.(*Paper)
	// The stamp as each file stat'ed from the root makes it.
	fromRoot := func() string {
		parts := []string{paperUnitsVersion, "pdf-" + strconv.Itoa(pdf.Version), s.p.Ref}
		for _, rel := range []string{s.p.PDF, s.p.Ref + "/" + catalog.PaperMDFile, s.p.Ref + "/" + catalog.NotesFile, s.p.Ref + "/" + catalog.MetadataFile, s.p.Ref + "/" + MarksFile} {
			if rel == "" {
				parts = append(parts, "-")
				continue
			}
			parts = append(parts, s.fileStamp(rel))
		}
		return stampOf(parts...)
	}
	if s.p.PDF == "" {
		t.Fatal("the paper has no PDF")
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"as written", func(*testing.T) {}},
		{"a file changed", func(t *testing.T) {
			writeVaultFile(t, root, "papers/a/PAPER.md", []byte("# A paper\n\nlonger text than before\n"))
		}},
		{"a file removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(root, "papers/a", MarksFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"the folder a link", func(t *testing.T) {
			if err := os.Rename(filepath.Join(root, "papers/a"), filepath.Join(root, "papers/b")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("b", filepath.Join(root, "papers/a")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the folder gone", func(t *testing.T) {
			if err := os.Remove(filepath.Join(root, "papers/a")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	seen := map[string]string{}
	for _, st := range steps {
		st.change(t)
		got, want := s.stamp(), fromRoot()
		if got != want {
			t.Errorf("%s: stamp %s, stat'ed from the root %s", st.name, got, want)
		}
		if prev, ok := seen[got]; ok && st.name != "the folder gone" {
			t.Errorf("%s: the same stamp as %q", st.name, prev)
		}
		seen[got] = st.name
	}
}
