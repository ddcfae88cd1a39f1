package tools_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/tools"
)

// libraryPapers are sample-vault papers a generated reference list links
// to: the 4th, 11th and 18th reference (a library paper is one card, so
// each is named once).
var libraryPapers = []string{"papers/2403.05678", "papers/2406.09876", "papers/vision/resnet-like"}

// writeReferences replaces the reference sidecar of paper with n generated
// references, three of them matched to library papers, and returns the
// key of each in order (its title, or for a library paper, whose card
// takes the paper's own title, its path) and those of the library ones.
func writeReferences(t testing.TB, vault, paper string, n int) (all, library []string) {
	t.Helper()
	type meta struct {
		Title   string   `json:"title"`
		Authors []string `json:"authors"`
		Year    int      `json:"year"`
	}
	type match struct {
		PaperPath string `json:"paperPath"`
		MatchBy   string `json:"matchBy"`
	}
	type citation struct {
		ID         string `json:"id"`
		Metadata   meta   `json:"metadata"`
		LocalMatch *match `json:"localMatch,omitempty"`
	}
	var cs []citation
	for i := range n {
		c := citation{ID: fmt.Sprintf("c%d", i+1), Metadata: meta{
			Title: fmt.Sprintf("Generated reference %04d on sparse attention", i+1), Authors: []string{"A. Author"}, Year: 2000 + i%25,
		}}
		if i%7 == 3 && i/7 < len(libraryPapers) {
			c.LocalMatch = &match{PaperPath: libraryPapers[i/7], MatchBy: "doi"}
			library = append(library, c.LocalMatch.PaperPath)
			all = append(all, c.LocalMatch.PaperPath)
		} else {
			all = append(all, c.Metadata.Title)
		}
		cs = append(cs, c)
	}
	data, err := json.Marshal(map[string]any{"schemaVersion": 1, "citations": cs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, filepath.FromSlash(paper), "source", "agentero-cite.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return all, library
}

// TestRelationsPaging: paging by cursor through a paper with more
// references than one page reaches every reference exactly once, in
// order, whatever the limit, the filter or the budget; each page holds at
// most limit cards and fits the read's budget, says how many remain, and
// logs exactly the cards it handed out.
func TestRelationsPaging(t *testing.T) {
	const paper = "papers/2401.01234"
	tests := []struct {
		name      string
		n         int
		readChars int
		in        tools.RelationsInput
		pageMax   int  // cards per page at most
		library   bool // want the library references only
	}{
		{"default limit", 120, 0, tools.RelationsInput{Kind: tools.RelReferences}, 10, false},
		{"limit 0 is the default", 120, 0, tools.RelationsInput{Kind: tools.RelReferences, Limit: 0}, 10, false},
		{"limit 7", 120, 0, tools.RelationsInput{Kind: tools.RelReferences, Limit: 7}, 7, false},
		{"limit 10^9 is capped", 120, 0, tools.RelationsInput{Kind: tools.RelReferences, Limit: 1_000_000_000}, 40, false},
		{"kind all", 120, 0, tools.RelationsInput{Limit: 25}, 25, false},
		{"library only", 120, 0, tools.RelationsInput{Kind: tools.RelReferences, Library: true, Limit: 1}, 1, true},
		{"budget cuts each page", 120, 700, tools.RelationsInput{Kind: tools.RelReferences, Limit: 40}, 40, false},
		{"5,000 references", 5000, 0, tools.RelationsInput{Kind: tools.RelReferences, Limit: 40}, 40, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all, lib []string
			budget := &grant.BudgetOverrides{TurnChars: intp(400_000)}
			if tt.readChars > 0 {
				budget.ReadChars = intp(tt.readChars)
			}
			f := newFixtureWith(t, budget, func(vault string) { all, lib = writeReferences(t, vault, paper, tt.n) })
			want := all
			if tt.library {
				want = lib
			}
			in := tt.in
			in.Paper = paper
			var got []string
			readCap := f.plan.Budget.ReadChars
			for page := 0; ; page++ {
				if page > len(want)+1 {
					t.Fatalf("no end after %d pages", page)
				}
				out, err := f.ts.Relations(context.Background(), in)
				if err != nil {
					t.Fatalf("page %d: %v", page, err)
				}
				if len(out.References) == 0 && out.NextCursor != "" {
					t.Fatalf("page %d is empty but has a cursor", page)
				}
				if len(out.References) > tt.pageMax || out.Chars() > readCap {
					t.Errorf("page %d: %d cards (at most %d), charge %d (cap %d)", page, len(out.References), tt.pageMax, out.Chars(), readCap)
				}
				var uris []string
				for _, c := range out.References {
					key := c.Title
					if c.PaperPath != "" {
						key = c.PaperPath
					}
					got = append(got, key)
					if tt.library && c.PaperPath == "" {
						t.Errorf("library page holds %+v", c)
					}
					if c.CitationURI != "" {
						uris = append(uris, c.CitationURI)
					}
				}
				wantLeft := tools.RelationCounts{References: len(want) - len(got)}
				if tt.in.Kind == "" {
					// kind all: the other lists of the sample paper
					// are short enough for one page.
					wantLeft = tools.RelationCounts{References: wantLeft.References}
				}
				if diff := cmp.Diff(wantLeft, out.Remaining); diff != "" {
					t.Errorf("page %d remaining (-want +got):\n%s", page, diff)
				}
				if out.Truncated != (out.NextCursor != "") {
					t.Errorf("page %d: truncated %v, cursor %q", page, out.Truncated, out.NextCursor)
				}
				u := usageOf(t, f.grant)
				line := u.Lines[len(u.Lines)-1]
				logged := line.URIs
				if tt.in.Kind == "" && page == 0 {
					logged = logged[:min(len(uris), len(logged))]
				}
				if diff := cmp.Diff(uris, logged, cmpEmpty); diff != "" {
					t.Errorf("page %d logged (-want +got):\n%s", page, diff)
				}
				if line.Chars != out.Chars() {
					t.Errorf("page %d: logged %d characters, charged %d", page, line.Chars, out.Chars())
				}
				if out.NextCursor == "" {
					break
				}
				in = tools.RelationsInput{Paper: paper, Cursor: out.NextCursor, Limit: tt.in.Limit, Library: tt.in.Library}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("references over all pages (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty makes a nil and an empty list equal.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") })

// TestRelationsCursorRefused: a cursor is good for the paper, kind and
// filter it was made for, in its own scope only; anything else is a
// one-line invalid-argument error, and so is a negative limit.
func TestRelationsCursorRefused(t *testing.T) {
	const paper = "papers/2401.01234"
	f := newFixtureWith(t, &grant.BudgetOverrides{ReadChars: intp(2000)}, func(vault string) { writeReferences(t, vault, paper, 60) })
	ctx := context.Background()
	first, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: paper, Kind: tools.RelReferences})
	if err != nil {
		t.Fatal(err)
	}
	if first.NextCursor == "" {
		t.Fatal("no cursor for 60 references")
	}
	read, err := f.ts.Read(ctx, tools.ReadInput{Target: paper, Mode: tools.ReadFull})
	if err != nil || read.NextCursor == "" {
		t.Fatalf("full read: %v, cursor %q", err, read.NextCursor)
	}
	forge := func(edit func(m map[string]any)) string {
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(first.NextCursor, "c1."))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ = json.Marshal(m)
		return "c1." + base64.RawURLEncoding.EncodeToString(b)
	}
	other := newFixtureWith(t, nil, func(vault string) { writeReferences(t, vault, paper, 60) }, "notes")
	for _, tt := range []struct {
		name string
		ts   *tools.Toolset
		in   tools.RelationsInput
		want string
	}{
		{"another paper", f.ts, tools.RelationsInput{Paper: "papers/vision/resnet-like", Cursor: first.NextCursor}, "the cursor belongs to paper"},
		{"another kind", f.ts, tools.RelationsInput{Paper: paper, Kind: tools.RelCitedBy, Cursor: first.NextCursor}, "the cursor belongs to kind references"},
		{"another filter", f.ts, tools.RelationsInput{Paper: paper, Library: true, Cursor: first.NextCursor}, "the cursor was made with library false"},
		{"another scope", other.ts, tools.RelationsInput{Paper: paper, Cursor: first.NextCursor}, "not one this server handed out"},
		{"garbage", f.ts, tools.RelationsInput{Paper: paper, Cursor: "page-2"}, "not one this server handed out"},
		{"bad base64", f.ts, tools.RelationsInput{Paper: paper, Cursor: "c1.!!!"}, "not one this server handed out"},
		{"a context_read cursor", f.ts, tools.RelationsInput{Paper: paper, Cursor: read.NextCursor}, "not one of paper_relations"},
		{"negative offset", f.ts, tools.RelationsInput{Paper: paper, Cursor: forge(func(m map[string]any) { m["l"] = []int{-1, 0, 0} })}, "not one of paper_relations"},
		{"two offsets", f.ts, tools.RelationsInput{Paper: paper, Cursor: forge(func(m map[string]any) { m["l"] = []int{10, 0} })}, "not one of paper_relations"},
		{"unknown kind", f.ts, tools.RelationsInput{Paper: paper, Cursor: forge(func(m map[string]any) { m["m"] = "cousins" })}, "not one this server handed out"},
		{"limit -1", f.ts, tools.RelationsInput{Paper: paper, Limit: -1}, "limit must be positive"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.ts.Relations(ctx, tt.in)
			if !errors.Is(err, tools.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Relations = %+v, %v; want a one-line invalid argument with %q", out, err, tt.want)
			}
			f.noLeak(t, err.Error())
		})
	}
	// A relations cursor is no cursor of context_read either.
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: paper, Cursor: first.NextCursor}); !errors.Is(err, tools.ErrInvalidArgument) {
		t.Errorf("context_read with a relations cursor: %v", err)
	}
	// The paper may be left out: the cursor names it.
	next, err := f.ts.Relations(ctx, tools.RelationsInput{Cursor: first.NextCursor})
	if err != nil || len(next.References) != 10 || next.References[0].PaperPath != libraryPapers[1] || next.References[1].Title != "Generated reference 0012 on sparse attention" {
		t.Errorf("page 2 by cursor alone: %v, %+v", err, next)
	}
	// The next turn of the same scope goes on with it, as with a cut
	// read: the cursor is bound to the scope, and it only says where the
	// same lists go on.
	f.plan.TurnID = "turn-2"
	if _, err := f.plan.WriteGrant(); err != nil {
		t.Fatal(err)
	}
	if again, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: paper, Cursor: first.NextCursor}); err != nil || len(again.References) != 10 || again.References[0].PaperPath != libraryPapers[1] {
		t.Errorf("page 2 in the next turn: %v, %+v", err, again)
	}
}

// BenchmarkRelationsPage is one paper_relations page deep in a list of
// 5,000 references, end to end in one process (grant check, budget, the
// lists, the usage log), against the first page of a list of 50. The grant
// is rewritten with a new turn id every 100 calls (same scope, fresh
// budget); that rewrite is not timed.
func BenchmarkRelationsPage(b *testing.B) {
	for _, n := range []int{50, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "vault")
			if err := samplevault.Extract(dir); err != nil {
				b.Fatal(err)
			}
			writeReferences(b, dir, "papers/2401.01234", n)
			turn := grant.MaxBudget().TurnChars
			plan, err := researchctx.Resolve(context.Background(), researchctx.Request{
				Vault: dir, RuntimeID: "bench", TurnID: "t0", CurrentPaper: "papers/2401.01234",
				Budget: &grant.BudgetOverrides{TurnChars: &turn},
			})
			if err != nil {
				b.Fatal(err)
			}
			gr, err := plan.WriteGrant()
			if err != nil {
				b.Fatal(err)
			}
			ts, err := tools.Open(context.Background(), gr, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ts.Close()
			ctx := context.Background()
			in := tools.RelationsInput{Paper: "papers/2401.01234", Kind: tools.RelReferences}
			// The page of the list's last cards.
			for range n/defaultLimit - 1 {
				out, err := ts.Relations(ctx, in)
				if err != nil {
					b.Fatal(err)
				}
				in.Cursor = out.NextCursor
			}
			for i := 0; b.Loop(); i++ {
				if i%100 == 99 {
					b.StopTimer()
					plan.TurnID = "t" + strconv.Itoa(i)
					if _, err := plan.WriteGrant(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				out, err := ts.Relations(ctx, in)
				if err != nil || len(out.References) != defaultLimit {
					b.Fatalf("%v, %d cards", err, len(out.References))
				}
			}
		})
	}
}

// defaultLimit is paper_relations' cards per list when the call names none.
const defaultLimit = 10
