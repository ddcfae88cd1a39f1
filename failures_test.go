package researchctx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// A "kind:name" mention of a connector the program does not link is said
// to be that, not taken for a missing vault file; a vault path with a
// colon that exists is still a vault path.
func TestResolveUnknownKind(t *testing.T) {
	vaultDir := vaultfix.Sample(t)
	if err := os.WriteFile(filepath.Join(vaultDir, "notes", "todo:later.md"), []byte("# Later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Resolver{Registry: vault.RegisterLibrary(sources.NewRegistry())}
	defer r.Close()
	rq := req(vaultDir)
	rq.Mentions = []string{"zotero:my-library", "notes/todo:later.md", "notes/none:x.md"}
	p, err := r.Resolve(context.Background(), rq)
	if err != nil {
		t.Fatal(err)
	}
	want := []Dropped{{Path: "zotero:my-library", Reason: DropUnknownKind}, {Path: "notes/none:x.md", Reason: DropNotFound}}
	if diff := cmp.Diff(want, p.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if len(p.Sources) != 1 || p.Sources[0].Path != "notes/todo:later.md" {
		t.Errorf("sources %+v, want the vault file with a colon", p.Sources)
	}
}

// Evidence from a PDF that cannot be read is marked: its page is the
// host's, unchecked. One that can be read is not.
func TestResolveUnreadableEvidence(t *testing.T) {
	vault := vaultfix.Sample(t)
	vaultfix.Write(t, vault, map[string]string{
		"papers/saved-page/NOTES.md":       "# A paper saved as a web page\n",
		"papers/saved-page/saved-page.pdf": "<!DOCTYPE html><html><body>Sign in to read this article</body></html>\n",
		"downloads/broken.pdf":             "%PDF-1.7\nthis is not a PDF body\n",
	})
	var r Resolver
	defer r.Close()
	rq := req(vault)
	rq.Selections = []Selection{
		{Text: "Sign in to read this article", Path: "papers/saved-page/saved-page.pdf", Page: 1},
		{Text: "some words", Path: "downloads/broken.pdf"},
		{Text: "A block size of 256 tokens was the best trade-off in our experiments", Path: "papers/2401.01234/2401.01234.pdf", Page: 1},
	}
	p, err := r.Resolve(context.Background(), rq)
	if err != nil {
		t.Fatal(err)
	}
	type mark struct {
		Path       string
		Page       int
		Unreadable bool
		Cite       string
	}
	var got []mark
	for _, ev := range p.Evidence {
		got = append(got, mark{ev.Path, ev.Page, ev.Unreadable, ev.CitationURI})
	}
	want := []mark{
		{"papers/saved-page/saved-page.pdf", 1, true, "papers/saved-page/saved-page.pdf#page=1"},
		{"downloads/broken.pdf", 0, true, "downloads/broken.pdf"},
		{"papers/2401.01234/2401.01234.pdf", 1, false, "papers/2401.01234/2401.01234.pdf#page=1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if len(p.Dropped) != 0 {
		t.Errorf("dropped %+v, want none: an unreadable document is granted, its evidence marked", p.Dropped)
	}
	if n := strings.Count(p.Prompt(), "(the document cannot be read"); n != 2 {
		t.Errorf("the prompt marks %d evidence items as unread, want 2:\n%s", n, p.Prompt())
	}
}

// Resolve gives the context's error, never a plan, when the context is
// cancelled before it starts or ends while it reads a selection's PDF.
func TestResolveHonoursContext(t *testing.T) {
	pdfs := corpus.Dir(t, "pdfs")
	vault := t.TempDir()
	data, err := os.ReadFile(filepath.Join(pdfs, "arxiv-1706.03762.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, vault, map[string]string{"downloads/attention.pdf": string(data)})
	rq := req(vault)
	rq.Selections = []Selection{{Text: "The dominant sequence transduction models are based on complex recurrent or convolutional neural networks", Path: "downloads/attention.pdf"}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	short, stop := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer stop()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"a deadline shorter than reading the PDF", short, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolver{CacheRoot: "-"} // nothing cached: the PDF is read in full
			defer r.Close()
			p, err := r.Resolve(tt.ctx, rq)
			if !errors.Is(err, tt.want) || p != nil {
				t.Fatalf("Resolve = %+v, %v; want no plan and %v", p, err, tt.want)
			}
		})
	}
	// With time enough, the same request places the quote.
	var r Resolver
	defer r.Close()
	p, err := r.Resolve(context.Background(), rq)
	if err != nil || len(p.Evidence) != 1 || p.Evidence[0].Page != 1 || p.Evidence[0].Unreadable {
		t.Fatalf("Resolve = %+v, %v; want the quote placed on page 1", p, err)
	}
}

// A folder under papers/ holding only a PDF named after it — the layout a
// download script makes, and the README's — is a paper; a folder whose PDF
// is named otherwise is not, and the reason says what makes one.
func TestResolveBarePaperFolder(t *testing.T) {
	vault := t.TempDir()
	data, err := os.ReadFile(filepath.Join(vaultfix.Sample(t), "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, vault, map[string]string{
		"papers/2401.01234/2401.01234.pdf": string(data),
		"papers/misc/scan-001.pdf":         string(data),
	})
	var r Resolver
	defer r.Close()
	rq := req(vault)
	rq.CurrentPaper = "papers/2401.01234"
	rq.Mentions = []string{"papers/misc"}
	rq.Selections = []Selection{{Text: "A block size of 256 tokens was the best trade-off in our experiments"}}
	p, err := r.Resolve(context.Background(), rq)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 2 || p.Sources[0].Kind != "paper" || p.Sources[0].Path != "papers/2401.01234" || p.Sources[1].Kind != "directory" {
		t.Errorf("sources %+v, want the bare folder as a paper, then papers/misc as a directory", p.Sources)
	}
	if len(p.Evidence) != 1 || p.Evidence[0].CitationURI != "papers/2401.01234/2401.01234.pdf#page=1" {
		t.Errorf("evidence %+v, want the quote placed in the paper's PDF", p.Evidence)
	}
	rq.CurrentPaper, rq.Mentions, rq.Selections = "papers/misc", nil, nil
	p, err = r.Resolve(context.Background(), rq)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Dropped{{Path: "papers/misc", Reason: DropNotPaper}}; !cmp.Equal(want, p.Dropped) {
		t.Errorf("dropped %+v, want %+v", p.Dropped, want)
	}
}
