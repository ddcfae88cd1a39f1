package tools_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

// TestReadCitesEveryPage: a read whose text comes from several pages of a
// real paper cites each of them, in order, and logs each as a source of the
// turn; a page whose text was cut away by the budget is not cited.
func TestReadCitesEveryPage(t *testing.T) {
	const pdf = "papers/1706.03762/1706.03762.pdf"
	pages := func(ns ...int) []string {
		var out []string
		for _, n := range ns {
			out = append(out, pdf+"#page="+strconv.Itoa(n))
		}
		return out
	}
	tests := []struct {
		name      string
		readChars int
		in        tools.ReadInput
		want      []string // CitationURIs; nil when one page only
		first     string   // CitationURI
		has       []string // verbatim text the result must hold
	}{
		{"full read over pages 1 to 4", 11000, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadFull},
			pages(1, 2, 3, 4), pdf + "#page=1", nil},
		{"full read cut within page 2", 4000, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadFull},
			pages(1, 2), pdf + "#page=1", nil},
		{"full read cut within page 1", 2000, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadFull},
			nil, pdf + "#page=1", nil},
		{"section over pages 2 to 6", 20000, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadSection, Section: "3 Model Architecture"},
			pages(2, 3, 4, 5, 6), pdf + "#page=2", []string{"3.1 Encoder and Decoder Stacks", "3.5 Positional Encoding"}},
		{"section cut by the budget within page 3", 2500, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadSection, Section: "3 Model Architecture"},
			pages(2, 3), pdf + "#page=2", []string{"3.1 Encoder and Decoder Stacks"}},
		{"section over pages 5 and 6", 20000, tools.ReadInput{Target: pdf + "#section=3.5%20Positional%20Encoding"},
			pages(5, 6), pdf + "#page=5", []string{"Since our model contains no recurrence"}},
		{"section on one page", 20000, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadSection, Section: "3.2.1"},
			nil, pdf + "#page=4", nil},
		{"quote across pages 6 and 7", 8000, tools.ReadInput{Target: "papers/1706.03762",
			Quote: "self-attention could be restricted to considering only a neighborhood of size r in the input sequence centered around the respective output position"},
			pages(6, 7), pdf + "#page=6", []string{"neighborhood of size r in", "the input sequence centered around the respective output position"}},
		{"quote across pages 9 and 10", 8000, tools.ReadInput{Target: pdf,
			Quote: "the output is subject to strong structural constraints and is significantly longer than the input"},
			pages(9, 10), pdf + "#page=9", []string{"subject to strong structural", "constraints and is significantly longer than the input"}},
		{"quote on one page", 8000, tools.ReadInput{Target: "papers/1706.03762", Quote: "we use sine and cosine functions of different frequencies"},
			nil, pdf + "#page=6", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, _, gr := attentionGrant(t, &grant.BudgetOverrides{ReadChars: intp(tt.readChars)})
			out, err := ts.Read(context.Background(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.CitationURIs); diff != "" {
				t.Errorf("citationUris (-want +got):\n%s", diff)
			}
			if out.CitationURI != tt.first {
				t.Errorf("citationUri %q, want %q", out.CitationURI, tt.first)
			}
			for _, s := range tt.has {
				if !strings.Contains(out.Text, s) {
					t.Errorf("text lacks %q", s)
				}
			}
			if out.Mode == tools.ReadFull {
				// The pages cited are exactly those whose text the
				// piece holds after its "[page N]" marker.
				want := markedPages(out.Text)
				if len(want) == 1 {
					want = nil
				}
				if diff := cmp.Diff(want, out.CitationURIs); diff != "" {
					t.Errorf("citationUris against the pages in the text (-want +got):\n%s", diff)
				}
			}
			// The call's usage line logs every page, and the turn's
			// sources list each as read.
			u := usageOf(t, gr)
			logged := tt.want
			if logged == nil {
				logged = []string{tt.first}
			}
			if diff := cmp.Diff(logged, u.Lines[len(u.Lines)-1].URIs); diff != "" {
				t.Errorf("usage line uris (-want +got):\n%s", diff)
			}
			var read []string
			for _, s := range u.Groups().Read {
				read = append(read, s.URI)
			}
			if diff := cmp.Diff(logged, read); diff != "" {
				t.Errorf("the turn's read sources (-want +got):\n%s", diff)
			}
			if out.Chars() != u.Lines[len(u.Lines)-1].Chars || out.Chars() > tt.readChars {
				t.Errorf("charge %d, logged %d, read cap %d", out.Chars(), u.Lines[len(u.Lines)-1].Chars, tt.readChars)
			}
		})
	}
}

// TestReadFullCursorCitesItsOwnPages: each piece of a full read paged by
// cursor cites the pages of its own text, the first being the page it
// starts on.
func TestReadFullCursorCitesItsOwnPages(t *testing.T) {
	ts, _, gr := attentionGrant(t, &grant.BudgetOverrides{ReadChars: intp(6000), TurnChars: intp(200000)})
	in := tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadFull}
	var all []string
	for i := 0; i < 20; i++ {
		out, err := ts.Read(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		got := out.CitationURIs
		if got == nil {
			got = []string{out.CitationURI}
		}
		if got[0] != out.CitationURI {
			t.Errorf("piece %d: citationUri %q is not the first of %v", i, out.CitationURI, got)
		}
		start := pageAtStart(out.Text)
		if start > 0 && !strings.HasSuffix(got[0], "#page="+strconv.Itoa(start)) {
			t.Errorf("piece %d starts on page %d, cites %v", i, start, got)
		}
		all = append(all, got...)
		if out.NextCursor == "" {
			break
		}
		in = tools.ReadInput{Cursor: out.NextCursor}
	}
	// Over the pieces, every page of the paper is cited, in order (a page
	// split between two pieces is cited by both).
	all = slices.Compact(all)
	var want []string
	for p := 1; p <= 15; p++ {
		want = append(want, "papers/1706.03762/1706.03762.pdf#page="+strconv.Itoa(p))
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("pages cited over the pieces (-want +got):\n%s", diff)
	}
	if got := len(usageOf(t, gr).Sources); got != 15 {
		t.Errorf("%d sources for the turn, want the 15 pages", got)
	}
}

var pageMarker = regexp.MustCompile(`\[page (\d+)\]\n`)

// markedPages returns the URIs of the pages whose "[page N]" marker in a
// full read's text is followed by some of the page's text.
func markedPages(text string) []string {
	var out []string
	ms := pageMarker.FindAllStringSubmatchIndex(text, -1)
	for i, m := range ms {
		end := len(text)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		if strings.TrimSpace(text[m[1]:end]) != "" {
			out = append(out, "papers/1706.03762/1706.03762.pdf#page="+text[m[2]:m[3]])
		}
	}
	return out
}

// pageAtStart returns N when a full read's piece starts with its "[page N]"
// marker, else 0 (the piece starts inside a page).
func pageAtStart(text string) int {
	m := pageMarker.FindStringSubmatch(text)
	if m == nil || !strings.HasPrefix(text, m[0]) {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// intp returns a pointer to n, for budget overrides.
func intp(n int) *int { return &n }
