package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/sources"
)

// sectionDoc has bookmark titles without numbers over page text that
// prints them, numbered titles, a spaced small-caps heading and an
// appendix.
var sectionDoc = &sources.Document{
	Path: "papers/x/x.pdf",
	Parts: []sources.Part{
		{Location: sources.Location{Page: 1}, Text: "I NTRODUCTION\nWe study attention.\n\n3.5 Positional Encoding\nSine and cosine.\n"},
		{Location: sources.Location{Page: 2}, Text: "IV. Results\nNumbers.\n\nA Proofs of the Theorems\nProof.\n\n3.2.1 Scaled Dot-Product Attention\nSoftmax.\n"},
	},
	Sections: []sources.Section{
		{Title: "I NTRODUCTION", Level: 1, Page: 1, Part: 0, Offset: 0},
		{Title: "Positional Encoding", Level: 2, Page: 1, Part: 0, Offset: 35},
		{Title: "IV. Results", Level: 1, Page: 2, Part: 1, Offset: 0},
		{Title: "Proofs of the Theorems", Level: 1, Page: 2, Part: 1, Offset: 22},
		{Title: "3.2.1 Scaled Dot-Product Attention", Level: 3, Page: 2, Part: 1, Offset: 55},
	},
}

func TestSectionNumbers(t *testing.T) {
	var got []string
	for i := range sectionDoc.Sections {
		got = append(got, sectionNumber(sectionDoc, i))
	}
	want := []string{"", "3.5", "IV", "A", "3.2.1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("section numbers (-want +got):\n%s", diff)
	}
}

func TestFindSection(t *testing.T) {
	tests := []struct {
		arg  string
		want int // index in sectionDoc.Sections, -1 for none
	}{
		{"Positional Encoding", 1},
		{"3.5", 1},
		{"§3.5", 1},
		{"§ 3.5", 1},
		{"Sec. 3.5", 1},
		{"sec 3.5", 1},
		{"Section 3.5", 1},
		{"section 3.5.", 1},
		{"3.5 Positional Encoding", 1},
		{"positional encodings", 1},
		{"Scaled dot product attention", 4},
		{"3.2.1", 4},
		{"IV", 2},
		{"Sec. IV", 2},
		{"Appendix A", 3},
		{"proof of theorem", 3},
		{"I NTRODUCTION", 0},
		{"introduction", 0},
		{"3.6", -1},
		{"§12", -1},
		{"encoding of positions in graphs", -1},
		{"attention", -1}, // the title of no section, and not three quarters of "scaled dot-product attention"
		{"", -1},
		{"   ", -1},
	}
	for _, tt := range tests {
		i, ok := findSection(sectionDoc, tt.arg)
		if !ok {
			i = -1
		}
		if i != tt.want {
			t.Errorf("findSection(%q) = %d, want %d", tt.arg, i, tt.want)
		}
	}
}

func TestSplitSectionArg(t *testing.T) {
	tests := []struct{ in, num, rest string }{
		{"3.5 Positional Encoding", "3.5", "Positional Encoding"},
		{"§3.5", "3.5", ""},
		{"Sec. 3.5", "3.5", ""},
		{"Section 2", "2", ""},
		{"A.2 Extra results", "A.2", "Extra results"},
		{"A Proofs", "A", "Proofs"},
		{"A survey of methods", "", "A survey of methods"},
		{"I NTRODUCTION", "", "I NTRODUCTION"},
		{"IV. Results", "IV", "Results"},
		{"Results", "", "Results"},
		{"2017 was a year", "2017", "was a year"},
	}
	for _, tt := range tests {
		num, rest := splitSectionArg(tt.in)
		if num != tt.num || rest != tt.rest {
			t.Errorf("splitSectionArg(%q) = %q, %q; want %q, %q", tt.in, num, rest, tt.num, tt.rest)
		}
	}
}
