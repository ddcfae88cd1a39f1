package researchctx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/grant"
)

func req(vault string) Request {
	return Request{Vault: vault, RuntimeID: "run-1", TurnID: "turn-1"}
}

func TestResolveSources(t *testing.T) {
	dir := testVault(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "notes", "escape.txt")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		current     string
		mentions    []string
		remote      bool
		wantSources []grant.Ref
		wantDropped []Dropped
		wantMode    grant.Mode
	}{
		{
			name:        "paper folder is a paper",
			current:     "papers/1706.03762",
			wantSources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/1706.03762", Title: "Attention Is All You Need"}},
			wantMode:    grant.ModeMCP,
		},
		{
			name:     "nested paper wins over an organisation folder with an index NOTES.md",
			mentions: []string{"papers/vision/resnet", "papers/1706.03762"},
			wantSources: []grant.Ref{
				{Kind: grant.KindPaper, Path: "papers/vision/resnet", Title: "Deep Residual Learning"},
				{Kind: grant.KindPaper, Path: "papers/1706.03762", Title: "Attention Is All You Need"},
			},
			wantMode: grant.ModeMCP,
		},
		{
			name:     "the organisation folder grants the paper in it (one source)",
			mentions: []string{"papers/vision", "papers/vision/resnet"},
			wantSources: []grant.Ref{
				{Kind: grant.KindDirectory, Path: "papers/vision", Title: "vision"},
			},
			wantMode: grant.ModeMCP,
		},
		{
			name:     "plain directory and extensionless file",
			mentions: []string{"notes", "reading-list", "notes/ideas.md"},
			wantSources: []grant.Ref{
				{Kind: grant.KindDirectory, Path: "notes", Title: "notes"},
				{Kind: grant.KindFile, Path: "reading-list", Title: "reading-list"},
				// notes/ideas.md is in notes, which grants it.
			},
			wantMode: grant.ModeMCP,
		},
		{
			name:        "paper without metadata takes its PAPER.md heading",
			mentions:    []string{"papers/bare"},
			wantSources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/bare", Title: "A Paper Without Metadata"}},
			wantMode:    grant.ModeMCP,
		},
		{
			name:        "folder inside source/ is not a paper",
			mentions:    []string{"papers/vision/resnet/source/nested"},
			wantSources: []grant.Ref{{Kind: grant.KindDirectory, Path: "papers/vision/resnet/source/nested", Title: "nested"}},
			wantMode:    grant.ModeMCP,
		},
		{
			name:        "remote session is prompt-only",
			current:     "papers/1706.03762",
			remote:      true,
			wantSources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/1706.03762", Title: "Attention Is All You Need"}},
			wantMode:    grant.ModePromptOnly,
		},
		{
			name:     "nothing authorisable is prompt-only",
			mentions: []string{".agentero/citing-scan.json", "../etc/passwd", "/etc/passwd", "notes/\x00x", "notes/escape.txt", "missing/file", "papers/x-private/../../.agentero", "notes/../../etc"},
			wantDropped: []Dropped{
				{Path: ".agentero/citing-scan.json", Reason: "private: .agentero/ is never a source"},
				{Path: "../etc/passwd", Reason: "outside the vault"},
				{Path: "(absolute path)", Reason: "absolute path: outside the vault"},
				{Path: `notes/\x00x`, Reason: "invalid path"},
				{Path: "notes/escape.txt", Reason: "symbolic link: sources are read only from real folders and files"},
				{Path: "missing/file", Reason: "not found"},
				{Path: "papers/x-private/../../.agentero", Reason: DropPrivate},
				{Path: "notes/../../etc", Reason: DropOutside},
			},
			wantMode: grant.ModePromptOnly,
		},
		{
			name:        "a path that climbs back into the vault is inside it",
			mentions:    []string{"notes/../papers/1706.03762"},
			wantSources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/1706.03762", Title: "Attention Is All You Need"}},
			wantMode:    grant.ModeMCP,
		},
		{
			name:        "current paper that is not a paper is dropped",
			current:     "notes",
			wantDropped: []Dropped{{Path: "notes", Reason: DropNotPaper}},
			wantMode:    grant.ModePromptOnly,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(dir)
			r.CurrentPaper, r.Mentions, r.Remote = tt.current, tt.mentions, tt.remote
			var res Resolver
			defer res.Close()
			p, err := res.Resolve(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantSources
			if want == nil {
				want = []grant.Ref{}
			}
			if diff := cmp.Diff(want, p.Sources); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			wantDropped := tt.wantDropped
			if wantDropped == nil {
				wantDropped = []Dropped{}
			}
			if diff := cmp.Diff(wantDropped, p.Dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if p.Mode != tt.wantMode {
				t.Errorf("mode = %q, want %q", p.Mode, tt.wantMode)
			}
			prompt := p.Prompt()
			if tt.wantMode == grant.ModePromptOnly {
				if len(p.Tools) != 0 {
					t.Errorf("prompt-only plan has tools %v", p.Tools)
				}
				// No evidence here: nothing "above" to answer from.
				if !strings.Contains(prompt, NoContextLine) || strings.Contains(prompt, "evidence above") {
					t.Errorf("prompt-only prompt without evidence lacks the no-context line:\n%s", prompt)
				}
			} else {
				if diff := cmp.Diff(grant.Tools(), p.Tools); diff != "" {
					t.Errorf("tools (-want +got):\n%s", diff)
				}
				if strings.Contains(prompt, CannotExpandLine) {
					t.Errorf("mcp prompt has the cannot-expand line")
				}
			}
			if !strings.Contains(prompt, ReferenceLine) {
				t.Errorf("prompt lacks the reference-material line")
			}
			for _, leak := range []string{dir, "outside secret"} {
				if strings.Contains(prompt, leak) {
					t.Errorf("prompt leaks %q", leak)
				}
			}
		})
	}
}

func TestResolveEvidence(t *testing.T) {
	dir := testVault(t)
	long := strings.Repeat("attention ", 150) // 1,500 characters
	cjk := strings.Repeat("注意力机制", 300)       // 1,500 characters
	tests := []struct {
		name string
		sel  Selection
		want Evidence
	}{
		{
			name: "selection on a PDF page cites the page",
			sel:  Selection{Text: "Scaled dot-product attention", Path: "papers/1706.03762/1706.03762.pdf", Page: 3},
			want: Evidence{PaperRef: "papers/1706.03762", Path: "papers/1706.03762/1706.03762.pdf", Title: "Attention Is All You Need", Page: 3,
				Quote: "Scaled dot-product attention", CitationURI: "papers/1706.03762/1706.03762.pdf#page=3",
				Unreadable: true}, // the vault's PDF is a stub: not checked
		},
		{
			name: "selection without a path comes from the current paper",
			sel:  Selection{Text: "  multi-head  ", Page: 5},
			want: Evidence{PaperRef: "papers/1706.03762", Path: "papers/1706.03762/1706.03762.pdf", Title: "Attention Is All You Need", Page: 5,
				Quote: "multi-head", CitationURI: "papers/1706.03762/1706.03762.pdf#page=5",
				Unreadable: true}, // the vault's PDF is a stub: not checked
		},
		{
			name: "selection in a note cites its section",
			sel:  Selection{Text: "some ideas", Path: "notes/ideas.md", Section: "Ideas"},
			want: Evidence{Path: "notes/ideas.md", Section: "Ideas", Quote: "some ideas", CitationURI: "notes/ideas.md#section=Ideas"},
		},
		{
			name: "long quote is cut at 1200 characters",
			sel:  Selection{Text: long, Path: "papers/1706.03762/1706.03762.pdf", Page: 1},
			want: Evidence{PaperRef: "papers/1706.03762", Path: "papers/1706.03762/1706.03762.pdf", Title: "Attention Is All You Need", Page: 1,
				Quote: long[:1200], Truncated: true, CitationURI: "papers/1706.03762/1706.03762.pdf#page=1",
				Unreadable: true}, // the vault's PDF is a stub: not checked
		},
		{
			name: "CJK quote is cut at 1200 characters, not bytes",
			sel:  Selection{Text: cjk, Path: "papers/1706.03762/1706.03762.pdf", Page: 2},
			want: Evidence{PaperRef: "papers/1706.03762", Path: "papers/1706.03762/1706.03762.pdf", Title: "Attention Is All You Need", Page: 2,
				Quote: string([]rune(cjk)[:1200]), Truncated: true, CitationURI: "papers/1706.03762/1706.03762.pdf#page=2",
				Unreadable: true}, // the vault's PDF is a stub: not checked
		},
		{
			name: "selection from a private path keeps the quote but no source",
			sel:  Selection{Text: "x", Path: ".agentero/citing-scan.json"},
			want: Evidence{Quote: "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(dir)
			r.CurrentPaper = "papers/1706.03762"
			r.Selections = []Selection{tt.sel}
			p, err := Resolve(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Evidence) != 1 {
				t.Fatalf("evidence = %+v, want one item", p.Evidence)
			}
			if diff := cmp.Diff(tt.want, p.Evidence[0]); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
			if q := p.Evidence[0].Quote; !utf8.ValidString(q) || utf8.RuneCountInString(q) > MaxQuote {
				t.Errorf("quote invalid or longer than %d characters", MaxQuote)
			}
			if strings.Contains(p.Prompt(), "UNIQUE-ABSTRACT-SENTINEL") {
				t.Error("the abstract reached the prompt")
			}
		})
	}
}

func TestResolveRequestErrors(t *testing.T) {
	dir := testVault(t)
	zero, big := 0, 1_000_000
	tests := []struct {
		name string
		mod  func(*Request)
	}{
		{"relative vault", func(r *Request) { r.Vault = "vault" }},
		{"missing vault", func(r *Request) { r.Vault = filepath.Join(dir, "nope") }},
		{"runtime id with a slash", func(r *Request) { r.RuntimeID = "a/b" }},
		{"runtime id dot-dot", func(r *Request) { r.RuntimeID = ".." }},
		{"no turn id", func(r *Request) { r.TurnID = "" }},
		{"zero budget override", func(r *Request) { r.Budget = &grant.BudgetOverrides{ReadChars: &zero} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(dir)
			tt.mod(&r)
			var res Resolver
			defer res.Close()
			_, err := res.Resolve(context.Background(), r)
			if !errors.Is(err, ErrRequest) {
				t.Fatalf("err = %v, want ErrRequest", err)
			}
			msg := err.Error()
			if r.Vault != dir {
				// A vault that cannot be opened is named as the host gave
				// it (the error is the host's), and nothing else is.
				msg = strings.Replace(msg, strconv.Quote(r.Vault), "", 1)
			}
			if strings.Contains(msg, dir) {
				t.Errorf("error leaks the vault path: %v", err)
			}
		})
	}
	t.Run("override above the hard limit is capped", func(t *testing.T) {
		r := req(dir)
		r.Budget = &grant.BudgetOverrides{ReadChars: &big, SearchCards: &big}
		p, err := Resolve(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if p.Budget.ReadChars != 100000 || p.Budget.SearchCards != 50 {
			t.Errorf("budget = %+v, want readChars 100000, searchCards 50", p.Budget)
		}
		// The cap is said, field by field, in the plan's notes.
		want := []string{
			fmt.Sprintf("searchCards %d is above the hard limit: capped at 50", big),
			fmt.Sprintf("readChars %d is above the hard limit: capped at 100000", big),
		}
		if diff := cmp.Diff(want, p.Notes); diff != "" {
			t.Errorf("notes (-want +got):\n%s", diff)
		}
		max := grant.MaxBudget()
		r.Budget = &grant.BudgetOverrides{ReadChars: &max.ReadChars}
		if p, err := Resolve(context.Background(), r); err != nil || p.Notes != nil {
			t.Errorf("an override at the limit: notes %v, %v; want none", p.Notes, err)
		}
	})
}

// TestLibraryOpenedOnce checks that a Resolver keeps each Vault open, so
// its catalogue and caches serve every later turn (the catalogue's own
// reuse until a change is tested in internal/catalog).
func TestLibraryOpenedOnce(t *testing.T) {
	dir := testVault(t)
	var res Resolver
	defer res.Close()
	l1, err := res.Library(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Resolve(context.Background(), req(dir)); err != nil {
		t.Fatal(err)
	}
	l2, err := res.Library(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l1 != l2 {
		t.Fatal("the vault was opened again")
	}
}
