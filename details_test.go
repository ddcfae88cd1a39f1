package researchctx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources/vault"
)

// The sample paper 2401.01234 has three pages.
func TestResolveSelectionPage(t *testing.T) {
	vault := vaultfix.Sample(t)
	const pdf = "papers/2401.01234/2401.01234.pdf"
	const quote = "A block size of 256 tokens was the best trade-off in our experiments"
	tests := []struct {
		name        string
		sel         Selection
		wantPage    int
		wantCite    string
		wantDropped []Dropped
	}{
		{"page in range", Selection{Text: quote, Path: pdf, Page: 1}, 1, pdf + "#page=1", []Dropped{}},
		{"last page", Selection{Text: "Notes on block-sparse kernels", Path: pdf, Page: 3}, 3, pdf + "#page=3", []Dropped{}},
		{"across a page break, the first page", Selection{Text: "Longformer: The long-document transformer. 2020. arXiv:2004.05150. [3] M. Zaheer, G. Guruganesh, A. Dubey, et al.", Path: pdf, Page: 2},
			2, pdf + "#page=2", []Dropped{}},
		{"across a page break, the second page", Selection{Text: "Longformer: The long-document transformer. 2020. arXiv:2004.05150. [3] M. Zaheer, G. Guruganesh, A. Dubey, et al.", Path: pdf, Page: 3},
			3, pdf + "#page=3", []Dropped{}},
		{"text on another page", Selection{Text: quote, Path: pdf, Page: 3}, 1, pdf + "#page=1", []Dropped{{Path: pdf, Reason: DropQuote}}},
		{"text in no page", Selection{Text: "words in no paper at all", Path: pdf, Page: 2}, 0, "", []Dropped{{Path: pdf, Reason: DropQuote}}},
		{"beyond the last page", Selection{Text: quote, Path: pdf, Page: 4}, 1, pdf + "#page=1", []Dropped{{Path: pdf, Reason: DropPage}}},
		{"far beyond, text not found", Selection{Text: "words in no paper at all", Path: pdf, Page: 999}, 0, "", []Dropped{{Path: pdf, Reason: DropPage}, {Path: pdf, Reason: DropQuote}}},
		{"negative", Selection{Text: quote, Path: pdf, Page: -2}, 1, pdf + "#page=1", []Dropped{{Path: pdf, Reason: DropPage}}},
		{"current paper, beyond", Selection{Text: quote, Page: 7}, 1, pdf + "#page=1", []Dropped{{Path: pdf, Reason: DropPage}}},
		{"unknown path, negative", Selection{Text: quote, Path: "papers/none.pdf", Page: -1}, 0, "", []Dropped{{Path: "papers/none.pdf", Reason: DropNotFound}}},
	}
	var res Resolver
	defer res.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ev := resolveSelection(t, &res, vault, tt.sel)
			if ev.Page != tt.wantPage || ev.CitationURI != tt.wantCite {
				t.Errorf("page %d cite %q, want %d %q", ev.Page, ev.CitationURI, tt.wantPage, tt.wantCite)
			}
			if diff := cmp.Diff(tt.wantDropped, p.Dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveTurnBudgetBelowOneCard(t *testing.T) {
	vault := vaultfix.Sample(t)
	tests := []struct {
		name      string
		turn      int
		card      *int
		wantError bool
	}{
		{"one default card fits", grant.DefaultBudget().CardChars + grant.CardOverhead, nil, false},
		{"one character short", grant.DefaultBudget().CardChars + grant.CardOverhead - 1, nil, true},
		{"tiny", 1, nil, true},
		{"smaller cards, still short", 200, ptr(100), true},
		{"smaller cards, enough", 500, ptr(100), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(vault)
			r.Budget = &grant.BudgetOverrides{TurnChars: ptr(tt.turn), CardChars: tt.card}
			_, err := Resolve(context.Background(), r)
			if tt.wantError != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tt.wantError)
			}
			if err != nil && (!errors.Is(err, ErrRequest) || !errors.Is(err, grant.ErrBudget) || !strings.Contains(err.Error(), "less than one search card")) {
				t.Errorf("err = %v, want ErrRequest and grant.ErrBudget", err)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func TestPromptWithoutEvidence(t *testing.T) {
	vault := vaultfix.Sample(t)
	tests := []struct {
		name      string
		mod       func(*Request)
		want      string
		forbidden []string
	}{
		{"nothing at all", func(*Request) {}, NoContextLine, []string{"evidence above", CannotExpandLine}},
		{"only dropped paths", func(r *Request) { r.Mentions = []string{"none"} }, NoContextLine, []string{"evidence above"}},
		{"remote with evidence", func(r *Request) {
			r.Remote = true
			r.Selections = []Selection{{Text: "some words", Path: "notes/ideas.txt"}}
		}, CannotExpandLine, []string{NoContextLine}},
		{"mcp without evidence", func(r *Request) { r.Mentions = []string{"notes"} }, "Allowed sources for this turn", []string{"evidence above", NoContextLine}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(vault)
			tt.mod(&r)
			p, err := Resolve(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			prompt := p.Prompt()
			if !strings.Contains(prompt, tt.want) {
				t.Errorf("prompt lacks %q:\n%s", tt.want, prompt)
			}
			for _, f := range tt.forbidden {
				if strings.Contains(prompt, f) {
					t.Errorf("prompt has %q:\n%s", f, prompt)
				}
			}
		})
	}
}

func TestResolveMissingVaultNamed(t *testing.T) {
	dir := t.TempDir()
	r := req(filepath.Join(dir, "my-library"))
	_, err := Resolve(context.Background(), r)
	if !errors.Is(err, ErrRequest) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want ErrRequest and fs.ErrNotExist", err)
	}
	// The host's error names the vault as the host gave it, so that a host
	// with several can tell which (no tool result ever carries it).
	if want := fmt.Sprintf(`vault %q cannot be opened`, r.Vault); !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %s", err, want)
	}
}

// A vault that is the file system's root, or a file, is refused with the
// path as the host gave it, and nothing is written there.
func TestResolveVaultNotAFolder(t *testing.T) {
	dir := vaultfix.Sample(t)
	file := filepath.Join(dir, "reading-list")
	for _, tt := range []struct{ vault, want string }{
		{"/", `vault "/" is the root of the file system`},
		{"/.", `vault "/." is the root of the file system`},
		{file, fmt.Sprintf(`vault %q cannot be opened: vault is not a folder`, file)},
	} {
		var res Resolver
		p, err := res.Resolve(context.Background(), req(tt.vault))
		res.Close()
		if !errors.Is(err, ErrRequest) || p != nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("vault %q: %v, %v; want ErrRequest saying %s", tt.vault, p, err, tt.want)
		}
	}
	if _, err := vault.OpenLibrary("/", nil); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("OpenLibrary(/) = %v, want fs.ErrInvalid", err)
	}
}

// makeReadOnly removes write permission from every folder and file under
// dir except those in keep, and restores it when the test ends.
func makeReadOnly(t *testing.T, dir string, keep ...string) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, k := range keep {
			if p == k {
				return filepath.SkipDir
			}
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return os.Chmod(p, 0o444)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
}

// A read-only Vault resolves, with its caches in the Resolver's CacheRoot;
// its grant cannot be written, and the error says why.
func TestResolveReadOnlyVault(t *testing.T) {
	vault := vaultfix.Sample(t)
	// A Vault the SDK never wrote to: no .agentero folder of its own.
	if err := os.RemoveAll(filepath.Join(vault, ".agentero")); err != nil {
		t.Fatal(err)
	}
	makeReadOnly(t, vault)
	cache := t.TempDir()
	res := Resolver{CacheRoot: cache}
	defer res.Close()
	r := req(vault)
	r.Mentions = []string{"notes"}
	// No page: the resolver reads the PDF to place the quote, through the
	// PDF text cache.
	r.Selections = []Selection{{Text: "A block size of 256 tokens was the best trade-off in our experiments", Path: "papers/2401.01234/2401.01234.pdf"}}
	p, err := res.Resolve(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Evidence) != 1 || p.Evidence[0].Page != 1 || p.Mode != grant.ModeMCP {
		t.Fatalf("plan %+v", p)
	}
	if _, err := os.Lstat(filepath.Join(vault, ".agentero")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the read-only vault got a .agentero folder: %v", err)
	}
	own := agentero.VaultCache(cache, vault)
	if filepath.Dir(own) != cache {
		t.Fatalf("agentero.VaultCache = %s, want a folder in %s", own, cache)
	}
	var files int
	filepath.WalkDir(own, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Errorf("nothing was cached in %s", own)
	}

	_, err = p.WriteGrant()
	if !errors.Is(err, ErrReadOnly) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("WriteGrant = %v, want ErrReadOnly", err)
	}
	if msg := err.Error(); !strings.Contains(msg, ".agentero/context-sessions/run-1") || strings.Contains(msg, vault) {
		t.Errorf("WriteGrant error %q: want the grant folder named from .agentero on", msg)
	}
}

func TestCacheDirPerVault(t *testing.T) {
	a := agentero.VaultCache("/cache", "/home/u/Library")
	b := agentero.VaultCache("/cache", "/home/v/Library")
	if a == b || filepath.Dir(a) != "/cache" || !strings.HasPrefix(filepath.Base(a), "Library-") {
		t.Errorf("CacheDir: %s and %s", a, b)
	}
	if got := agentero.VaultCache("/cache", "/home/u/Library/"); got != a {
		t.Errorf("a trailing slash changed the folder: %s vs %s", got, a)
	}
	for _, dir := range []string{"", "-"} {
		if got := agentero.VaultCache(dir, "/v"); got != dir {
			t.Errorf("CacheDir(%q) = %q", dir, got)
		}
	}
}

// Resolver.CacheDir moves every cache of the Vault — the catalogue and the
// PDF text the resolver reads to place a quote — out of .agentero/cache.
func TestResolverCacheDir(t *testing.T) {
	vault := vaultfix.Sample(t)
	cache := t.TempDir()
	res := Resolver{CacheRoot: cache}
	defer res.Close()
	r := req(vault)
	r.Selections = []Selection{{Text: "A block size of 256 tokens was the best trade-off in our experiments", Path: "papers/2401.01234/2401.01234.pdf"}}
	p, err := res.Resolve(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Evidence) != 1 || p.Evidence[0].Page != 1 {
		t.Fatalf("evidence %+v", p.Evidence)
	}
	var got []string
	own := agentero.VaultCache(cache, vault)
	filepath.WalkDir(own, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(own, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	if !slices.Contains(got, "catalogue.bin") || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "pdf/") }) {
		t.Errorf("cache folder holds %v, want the catalogue and PDF text", got)
	}
	if _, err := os.Stat(filepath.Join(vault, ".agentero", "cache")); err == nil {
		t.Errorf("a cache was written under the vault's .agentero")
	}
}
