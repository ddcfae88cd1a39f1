package tools_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// One concept, one sentinel: a tool's "not found" is the sources one and
// its "budget spent" the usage log's, so errors.Is matches across packages.
func TestSentinelsMatchAcrossPackages(t *testing.T) {
	f := newFixture(t, &grant.BudgetOverrides{TurnChars: ptr(600), CardChars: ptr(100)})
	ctx := context.Background()
	_, err := f.ts.Read(ctx, tools.ReadInput{Target: "notes/nowhere.md"})
	if !errors.Is(err, sources.ErrNotFound) {
		t.Errorf("read of a missing file: %v, want sources.ErrNotFound", err)
	}
	for range 20 {
		if _, err = f.ts.Search(ctx, tools.SearchInput{Query: "strided global tokens"}); err != nil {
			break
		}
	}
	if !errors.Is(err, tools.ErrBudgetSpent) || !errors.Is(err, usage.ErrTurnSpent) {
		t.Errorf("search past the turn's budget: %v, want tools.ErrBudgetSpent and usage.ErrTurnSpent", err)
	}
}

func ptr[T any](v T) *T { return &v }

// unreadableShelf adds to the vault a folder of PDFs that cannot be read —
// damaged, encrypted, an HTML page saved as .pdf — beside one that can.
func unreadableShelf(t *testing.T, vault string) {
	t.Helper()
	plain := hostilepdf.Plain("Quokkas sleep in hollow logs by day.")
	model.ConfigPath = "disable" // keep pdfcpu off the user's configuration folder
	var locked bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(plain), &locked, model.NewAESConfiguration("user-secret", "owner-secret", 256)); err != nil {
		t.Fatal(err)
	}
	for rel, data := range map[string][]byte{
		"shelf/quokka.pdf":       plain,
		"shelf/broken.pdf":       []byte("%PDF-1.7\nthis is not a PDF body\n"),
		"shelf/locked.pdf":       locked.Bytes(),
		"shelf/download.pdf":     []byte("<!DOCTYPE html><html><head><title>Sign in</title></head><body>Quokkas</body></html>\n"),
		"papers/saved/NOTES.md":  []byte("# Saved from the publisher's site\n\nQuokkas, a first look.\n"),
		"papers/saved/saved.pdf": []byte("<!DOCTYPE html><html><body>Sign in to read this article</body></html>\n"),
	} {
		p := filepath.Join(vault, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A search that could not read some documents says which and why, in a
// few words of its own: never the PDF parser's.
func TestSearchSaysWhatItSkipped(t *testing.T) {
	f := newFixtureWith(t, nil, func(v string) { unreadableShelf(t, v) }, "shelf", "papers/saved")
	out, err := f.ts.Search(context.Background(), tools.SearchInput{Query: "quokkas hollow logs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cards) == 0 || out.Cards[0].CitationURI != "shelf/quokka.pdf#page=1" {
		t.Errorf("cards %+v, want the readable PDF's", out.Cards)
	}
	want := []tools.Skipped{
		// Resolve read the paper's PDF for its title: the search did not
		// parse it again.
		{Path: "papers/saved/saved.pdf", Reason: "malformed: damaged, or not a PDF (remembered)"},
		{Path: "shelf/broken.pdf", Reason: "malformed: damaged, or not a PDF"},
		{Path: "shelf/download.pdf", Reason: "malformed: damaged, or not a PDF"},
		{Path: "shelf/locked.pdf", Reason: "encrypted: it does not open without a password"},
	}
	if diff := cmp.Diff(want, out.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if !out.Partial || out.Truncated {
		t.Errorf("partial %v, truncated %v; want partial (documents skipped), not truncated", out.Partial, out.Truncated)
	}
	if out.Chars() != out.Budget.Used {
		t.Errorf("charge %d, budget used %d: the skipped list must be charged", out.Chars(), out.Budget.Used)
	}
	// A read of one of them says it in one line, without the parser's words.
	_, err = f.ts.Read(context.Background(), tools.ReadInput{Target: "shelf/locked.pdf", Mode: tools.ReadFull})
	if err == nil || !strings.Contains(err.Error(), "shelf/locked.pdf") || !strings.Contains(err.Error(), "encrypted") {
		t.Errorf("read of the encrypted PDF: %v", err)
	}
	for _, s := range append(out.Skipped, tools.Skipped{Reason: fmt.Sprint(err)}) {
		for _, internal := range []string{"pdfcpu", "obj#", "provide the correct password", "pdf: encrypted", "pdf: malformed", "\n"} {
			if strings.Contains(s.Reason, internal) {
				t.Errorf("%s: %q shows the parser's %q", s.Path, s.Reason, internal)
			}
		}
		f.noLeak(t, s.Reason)
	}
}

// A call whose context is cancelled, or ends while it reads a PDF, fails
// with the context's error, never a degraded result, and logs nothing.
func TestCallsHonourContext(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1706.03762.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	prep := func(v string) {
		if err := os.MkdirAll(filepath.Join(v, "downloads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(v, "downloads", "attention.pdf"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixtureWith(t, nil, prep, "downloads")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"read, full", func(ctx context.Context) error {
			_, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/attention.pdf", Mode: tools.ReadFull})
			return err
		}},
		{"read, metadata", func(ctx context.Context) error {
			_, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/attention.pdf"})
			return err
		}},
		{"search", func(ctx context.Context) error {
			_, err := f.ts.Search(ctx, tools.SearchInput{Query: "multi-head attention", Source: "downloads"})
			return err
		}},
		{"relations", func(ctx context.Context) error {
			_, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234"})
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(cancelled); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v, want context.Canceled", err)
			}
			short, stop := context.WithTimeout(context.Background(), time.Millisecond)
			defer stop()
			if err := tt.call(short); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("past its deadline: %v, want context.DeadlineExceeded", err)
			}
		})
	}
	if u := usageOf(t, f.grant); u.Calls != 0 {
		t.Errorf("%d calls logged, want none: every call was given up", u.Calls)
	}
	// The Library a connector reads through says the same.
	lib, err := vault.OpenLibrary(f.vault, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	short, stop := context.WithTimeout(context.Background(), time.Millisecond)
	defer stop()
	if _, err := lib.Document(short, "downloads/attention.pdf"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Library.Document past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if doc, err := lib.Document(context.Background(), "downloads/attention.pdf"); err != nil || doc.Pages != 15 {
		t.Fatalf("Library.Document with time enough: %v pages, %v", doc, err)
	}
}

// At most MaxSkipped unreadable documents are listed; the rest are counted.
func TestSearchSkippedIsCapped(t *testing.T) {
	prep := func(v string) {
		if err := os.MkdirAll(filepath.Join(v, "heap"), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range tools.MaxSkipped + 3 {
			if err := os.WriteFile(filepath.Join(v, "heap", fmt.Sprintf("broken-%d.pdf", i)), []byte("%PDF-1.7\nnot a body\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := newFixtureWith(t, nil, prep, "heap")
	out, err := f.ts.Search(context.Background(), tools.SearchInput{Query: "anything at all"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Skipped) != tools.MaxSkipped || out.SkippedMore != 3 || out.Skipped[0].Path != "heap/broken-0.pdf" || !out.Partial {
		t.Errorf("skipped %+v, %d more, partial %v; want %d listed, 3 more, partial", out.Skipped, out.SkippedMore, out.Partial, tools.MaxSkipped)
	}
}

// An empty .pdf is said: a search lists it in skipped, as a file of 0
// bytes, and a read of it says the same; it is not left out unsaid.
func TestSearchSaysEmptyPDF(t *testing.T) {
	prep := func(v string) {
		for rel, data := range map[string][]byte{
			"shelf/quokka.pdf": hostilepdf.Plain("Quokkas sleep in hollow logs by day."),
			"shelf/empty.pdf":  nil,
		} {
			p := filepath.Join(v, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := newFixtureWith(t, nil, prep, "shelf")
	out, err := f.ts.Search(context.Background(), tools.SearchInput{Query: "quokkas hollow logs"})
	if err != nil {
		t.Fatal(err)
	}
	want := []tools.Skipped{{Path: "shelf/empty.pdf", Reason: "empty: the file has 0 bytes"}}
	if diff := cmp.Diff(want, out.Skipped); diff != "" || !out.Partial || len(out.Cards) == 0 {
		t.Errorf("skipped (-want +got):\n%s\npartial %v, %d cards", diff, out.Partial, len(out.Cards))
	}
	_, err = f.ts.Read(context.Background(), tools.ReadInput{Target: "shelf/empty.pdf", Mode: tools.ReadPage, Page: 1})
	if err == nil || !strings.Contains(err.Error(), "0 bytes") {
		t.Errorf("read of an empty PDF: %v, want it said empty", err)
	}
}

// A context already cancelled is refused at every entry point: opening
// the toolset, and each tool, which reserves and logs nothing.
func TestEndedContextRefused(t *testing.T) {
	f := newFixture(t, nil)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if ts, err := tools.Open(cancelled, f.grant, nil); !errors.Is(err, context.Canceled) || ts != nil {
		t.Errorf("Open = %v, %v; want context.Canceled", ts, err)
	}
	calls := map[string]func() error{
		"context_search": func() error {
			_, err := f.ts.Search(cancelled, tools.SearchInput{Query: "strided global tokens"})
			return err
		},
		"context_read": func() error {
			_, err := f.ts.Read(cancelled, tools.ReadInput{Target: "papers/2401.01234"})
			return err
		},
		"paper_relations": func() error {
			_, err := f.ts.Relations(cancelled, tools.RelationsInput{Paper: "papers/2401.01234"})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
	if data, err := os.ReadFile(grant.UsagePath(f.grant)); err == nil && len(data) > 0 {
		t.Errorf("usage.jsonl holds %q after refused calls, want nothing", data)
	}
}

// A target that is no path a grant can hold is refused with what is wrong
// with it, not only "not granted": nothing is read, and the error still
// wraps ErrNotGranted for a host that branches on it.
func TestTargetErrorsSayWhatIsWrong(t *testing.T) {
	f := newFixture(t, nil)
	for _, tt := range []struct{ target, says string }{
		{"notes/../notes/ideas.txt", `".." is not allowed in a path`},
		{"notes/%2e%2e/ideas.txt", `".." is not allowed in a path`},
		{"notes//ideas.txt", `an empty or "." path segment`},
		{"notes/meeting #3.md", `a "#" in a file name must be percent-encoded as %23`},
		{"notes/a#b=c.md", `a "#" in a file name must be percent-encoded as %23`},
		{"notes%2fideas.txt", `an encoded "/" (%2F) is not allowed`},
	} {
		_, err := f.ts.Read(context.Background(), tools.ReadInput{Target: tt.target})
		if !errors.Is(err, tools.ErrInvalidArgument) || !errors.Is(err, tools.ErrNotGranted) || err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Read(%q) = %v; want it to say %s", tt.target, err, tt.says)
		}
	}
	// A '#' percent-encoded names the file.
	if err := os.WriteFile(filepath.Join(f.vault, "notes", "meeting #3.md"), []byte("# Meeting 3\n\nquokkas\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "notes/meeting%20%233.md", Mode: tools.ReadFull}); err != nil || !strings.Contains(out.Text, "quokkas") {
		t.Errorf("the encoded name: %v, %v", out, err)
	}
}
