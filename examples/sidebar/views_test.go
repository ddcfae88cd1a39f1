package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// TestSourcesOrder: each group of sources is numbered from 1 on its own,
// a document's pages in page order whatever order the agent read them in,
// documents in the order of first use; the calls are counted in words, "1
// tool call" for one.
func TestSourcesOrder(t *testing.T) {
	s, _ := testServer(t, sampleVault(t), 0)
	const pdf = "papers/2401.01234/2401.01234.pdf"
	read := func(uri string) usage.Used { return usage.Used{URI: uri, Use: usage.UseRead, Place: usage.InGrant} }
	searched := func(uri string) usage.Used {
		return usage.Used{URI: uri, Use: usage.UseSearched, Place: usage.InGrant}
	}
	turn := usage.Turn{Calls: 1, Chars: 120, Sources: []usage.Used{
		searched("notes/ideas.txt"),
		read(pdf + "#page=2"),
		searched(pdf + "#page=5"),
		read("notes"),
		read(pdf + "#page=1"),
		searched(pdf + "#page=4"),
		read(pdf + "#page=3"),
	}}
	plan := &researchctx.Plan{Scope: grant.Scope{Budget: grant.DefaultBudget()}}
	v := s.sourcesView(context.Background(), turn, plan)
	var got []string
	for _, g := range v.Groups {
		for _, it := range g.Sources {
			got = append(got, fmt.Sprintf("%s %d %s", g.Use, it.N, it.URI))
		}
	}
	want := []string{
		"read 1 " + pdf + "#page=1",
		"read 2 " + pdf + "#page=2",
		"read 3 " + pdf + "#page=3",
		"read 4 notes",
		"searched 1 notes/ideas.txt",
		"searched 2 " + pdf + "#page=4",
		"searched 3 " + pdf + "#page=5",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if want := fmt.Sprintf("1 tool call logged · 120 of %d characters used", grant.DefaultBudget().TurnChars); v.Summary != want {
		t.Errorf("summary %q, want %q", v.Summary, want)
	}
	turn.Calls = 2
	if v := s.sourcesView(context.Background(), turn, plan); !strings.HasPrefix(v.Summary, "2 tool calls logged") {
		t.Errorf("summary %q, want 2 tool calls", v.Summary)
	}
}

// TestMarksRead: a marks read is shown as the agent received it: the
// number of marks, the characters of their text and comments, and each
// mark with its kind, page, text, comment and locator; not the empty text
// field of a read.
func TestMarksRead(t *testing.T) {
	const pdf = "papers/2401.01234/2401.01234.pdf"
	tests := []struct {
		name    string
		marks   []tools.MarkInfo
		summary string
		items   []itemView
	}{
		{
			name: "two marks",
			marks: []tools.MarkInfo{
				{Kind: sources.MarkHighlight, Page: 1, Text: "strided global tokens", CitationURI: pdf + "#page=1"},
				{Kind: sources.MarkNote, Page: 3, Text: "slot routing", Comment: "check ablation", CitationURI: pdf + "#page=3"},
			},
			summary: "marks: 2 marks, 47 chars of text and comments",
			items: []itemView{
				{Title: "highlight", Where: "p. 1", Excerpt: "strided global tokens", Link: link(pdf + "#page=1")},
				{Title: "note", Where: "p. 3", Excerpt: "slot routing — comment: check ablation", Link: link(pdf + "#page=3")},
			},
		},
		{
			name:    "one mark",
			marks:   []tools.MarkInfo{{Kind: sources.MarkUnderline, Page: 2, Text: "dense", CitationURI: pdf + "#page=2"}},
			summary: "marks: 1 mark, 5 chars of text and comments",
			items:   []itemView{{Title: "underline", Where: "p. 2", Excerpt: "dense", Link: link(pdf + "#page=2")}},
		},
		{
			name:    "none",
			summary: "marks: 0 marks, 0 chars of text and comments",
			items:   []itemView{{Title: "Strided", Where: "no marks", Link: link(pdf)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &tools.ReadOutput{Mode: tools.ReadMarks, Title: "Strided", Marks: tt.marks, CitationURI: pdf}
			c := &callView{}
			callResult(c, grant.ToolRead, out)
			if !strings.HasPrefix(c.Summary, tt.summary+" · budget") {
				t.Errorf("summary %q, want %q first", c.Summary, tt.summary)
			}
			if diff := cmp.Diff(tt.items, c.Items); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestREADMEFonts: the README names the font package the page's CJK
// fallback fonts come from, and the page's styles name its families.
func TestREADMEFonts(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "fonts-noto-cjk") {
		t.Error("the README does not name fonts-noto-cjk for CJK titles")
	}
	for _, f := range []string{"web/app.css", "web/doc.css"} {
		css, err := webFiles.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(css), `"Noto Sans CJK SC"`) {
			t.Errorf("%s names no Noto Sans CJK family", f)
		}
	}
}

// TestMarksReadSample: the sample paper's marks, read through the tools as
// the agent reads them, are shown one item each with their comments, and
// counted as the agent received them.
func TestMarksReadSample(t *testing.T) {
	s, _ := testServer(t, sampleVault(t), 0)
	ctx := context.Background()
	plan, err := s.resolver.Resolve(ctx, s.request(scope{CurrentPaper: samplePaper}, "marks-view"))
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	out, err := ts.Read(ctx, tools.ReadInput{Target: samplePaper, Mode: tools.ReadMarks})
	if err != nil {
		t.Fatal(err)
	}
	c := &callView{}
	callResult(c, grant.ToolRead, out)
	chars := 0
	for _, m := range out.Marks {
		chars += len([]rune(m.Text)) + len([]rune(m.Comment))
	}
	if want := fmt.Sprintf("marks: 4 marks, %d chars of text and comments · budget", chars); chars < 200 || !strings.HasPrefix(c.Summary, want) {
		t.Errorf("summary %q, want %q first", c.Summary, want)
	}
	if len(c.Items) != 4 {
		t.Fatalf("%d items for 4 marks: %+v", len(c.Items), c.Items)
	}
	for i, it := range c.Items {
		m := out.Marks[i]
		if it.Title != string(m.Kind) || it.Where != fmt.Sprintf("p. %d", m.Page) || it.Link == nil || it.Link.URI != m.CitationURI {
			t.Errorf("item %d: %+v for mark %+v", i, it, m)
		}
		if m.Comment != "" && !strings.Contains(it.Excerpt, "comment: "+m.Comment[:20]) {
			t.Errorf("item %d excerpt %q lacks the comment %q", i, it.Excerpt, m.Comment)
		}
	}
}
