package cite

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		uri  URI
		want string
	}{
		{"pdf page", URI{Path: "papers/1706.03762/1706.03762.pdf", Page: 3}, "papers/1706.03762/1706.03762.pdf#page=3"},
		{"plain file", URI{Path: "reading-list"}, "reading-list"},
		{"space in name", URI{Path: "notes/reading group.md"}, "notes/reading%20group.md"},
		{"section label", URI{Path: "notes/a.md", Section: "Open questions #2"}, "notes/a.md#section=Open%20questions%20%232"},
		{"region", URI{Path: "papers/x/x.pdf", Region: "figure-1"}, "papers/x/x.pdf#region=figure-1"},
		{"figure", URI{Path: "papers/x/x.pdf", Item: "figure-1"}, "papers/x/x.pdf#figure=1"},
		{"table", URI{Path: "papers/x/x.pdf", Item: "table-S2"}, "papers/x/x.pdf#table=S2"},
		{"algorithm", URI{Path: "notes/a.pdf", Item: "algorithm-1.2"}, "notes/a.pdf#algorithm=1.2"},
		{"percent and hash in name", URI{Path: "notes/100%#1.txt"}, "notes/100%25%231.txt"},
		{"CJK name", URI{Path: "notes/注意.md"}, "notes/%E6%B3%A8%E6%84%8F.md"},
		{"doi", URI{DOI: "10.1000/xyz(1)"}, "https://doi.org/10.1000/xyz%281%29"},
		{"arxiv", URI{ArXiv: "2401.01234"}, "https://arxiv.org/abs/2401.01234"},
		{"empty", URI{}, ""},
		{"zotero item", URI{Path: "zotero:items/ACFJNP3J"}, "zotero://select/library/items/ACFJNP3J"},
		{"zotero page", URI{Path: "zotero:items/QTBRV54N", Page: 3}, "zotero://open-pdf/library/items/QTBRV54N?page=3"},
		{"zotero annotation", URI{Path: "zotero:items/QTBRV54N", Page: 1, Annotation: "NXDAMBZG"}, "zotero://open-pdf/library/items/QTBRV54N?page=1&annotation=NXDAMBZG"},
		{"zotero group page", URI{Path: "zotero:groups/5550123/items/2E8KAQTC", Page: 2}, "zotero://open-pdf/groups/5550123/items/2E8KAQTC?page=2"},
		{"zotero group item", URI{Path: "zotero:groups/5550123/items/2E8KAQTC"}, "zotero://select/groups/5550123/items/2E8KAQTC"},
		{"zotero epub location", URI{Path: "zotero:items/E77HNKG7", CFI: "epubcfi(/6/14!/4/2/4,/1:0,/1:16)"}, "zotero://open-pdf/library/items/E77HNKG7?cfi=epubcfi%28%2F6%2F14%21%2F4%2F2%2F4%2C%2F1%3A0%2C%2F1%3A16%29"},
		{"zotero group epub location", URI{Path: "zotero:groups/5550123/items/E77HNKG7", CFI: "epubcfi(/6/4!/4/2[chap01]/1:0)"}, "zotero://open-pdf/groups/5550123/items/E77HNKG7?cfi=epubcfi%28%2F6%2F4%21%2F4%2F2%5Bchap01%5D%2F1%3A0%29"},
		{"zotero collection name", URI{Path: "zotero:collections/Thesis"}, "zotero%3Acollections/Thesis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.uri.String()
			if got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			if got == "" {
				return
			}
			back, err := Parse(got)
			if err != nil {
				t.Fatalf("Parse(%q): %v", got, err)
			}
			if diff := cmp.Diff(tt.uri, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{
		"",
		"/etc/passwd",
		"../secret",
		"papers/../../etc/passwd",
		"papers/%2e%2e/%2e%2e/etc/passwd",
		"papers/x%2f..%2f..%2fsecret",
		"papers/x/./y.pdf",
		"papers//x.pdf",
		"papers\\x.pdf",
		"papers/x.pdf\x00",
		"papers/x.pdf%00",
		"papers/x.pdf#page=0",
		"papers/x.pdf#figure=",
		"papers/x.pdf#figure=..",
		"papers/x.pdf#figure=%2E%2E%2F",
		"papers/x.pdf#table=1%2F2",
		"papers/x.pdf#table=a b",
		"papers/x.pdf#equation=3",
		"papers/x.pdf#page=-1",
		"zotero://select/library/items/short",
		"zotero://select/library/items/ACFJNP3J?page=1",
		"zotero://open-pdf/library/items/QTBRV54N?page=0",
		"zotero://open-pdf/library/items/QTBRV54N?page=01",
		"zotero://open-pdf/library/items/QTBRV54N?page=1&annotation=../x",
		"zotero://open-pdf/library/items/QTBRV54N?cfi=x",
		"zotero://open-pdf/library/items/QTBRV54N?cfi=epubcfi(/6/14)",
		"zotero://open-pdf/library/items/QTBRV54N?cfi=epubcfi%28%2F6%2F14%29&page=1",
		"zotero://open-pdf/library/items/QTBRV54N?cfi=epubcfi%28%0A%29",
		"zotero://open-pdf/library/items/QTBRV54N?cfi=epubcfi%28%2f6%29",
		"zotero://select/library/items/QTBRV54N?cfi=epubcfi%28%2F6%29",
		"zotero://open-pdf/groups/0123/items/QTBRV54N?page=1",
		"zotero://open-pdf/library/items/../../x?page=1",
		"zotero://open-pdf/users/1/items/QTBRV54N?page=1",
		"zotero://delete/library/items/QTBRV54N",
		"papers/x.pdf#page=03",
		"papers/x.pdf#page=3&section=a",
		"papers/x.pdf#zoom=2",
		"papers/x.pdf#",
		"papers/x.pdf#section=",
		"papers/x.pdf#region=../../x",
		"papers/x.pdf#section=../../notes-private/secret.md",
		"papers/x.pdf#section=..%2f..%2fsecret",
		"file:///etc/passwd",
		"http://doi.org/10.1/x",
		"https://example.com/x.pdf",
		"https://doi.org/not-a-doi",
		"https://arxiv.org/abs/",
		"papers/x%zz.pdf",
		"papers/x%4",
		"papers/%ff.pdf",
	} {
		t.Run(s, func(t *testing.T) {
			u, err := Parse(s)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) = %+v, %v; want ErrInvalid", s, u, err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"papers/x/x.pdf#page=3", "notes/a%20b.md#section=x", "https://doi.org/10.1/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		// Whatever parses re-encodes to something that parses to the same value.
		back, err := Parse(u.String())
		if err != nil || back != u {
			t.Fatalf("Parse(%q) = %+v; re-parse of %q = %+v, %v", s, u, u.String(), back, err)
		}
	})
}

// TestStringOnlyParseable checks that String hands out only what Parse
// accepts: a label Parse refuses is left off, an id Parse refuses gives no
// link.
func TestStringOnlyParseable(t *testing.T) {
	tests := []struct {
		name string
		in   URI
		want string
	}{
		{"traversal heading", URI{Path: "shelf/h.md", Section: "../../etc/passwd"}, "shelf/h.md"},
		{"heading ending in ..", URI{Path: "shelf/h.md", Section: "up/.."}, "shelf/h.md"},
		{"heading ..", URI{Path: "shelf/h.md", Section: ".."}, "shelf/h.md"},
		{"backslash traversal heading", URI{Path: "shelf/h.md", Section: `..\..\x`}, "shelf/h.md"},
		{"NUL in heading", URI{Path: "shelf/h.md", Section: "a\x00b"}, "shelf/h.md"},
		{"invalid UTF-8 heading", URI{Path: "shelf/h.md", Section: "a\xffb"}, "shelf/h.md"},
		{"region with a slash", URI{Path: "p/x.pdf", Region: "fig/1"}, "p/x.pdf"},
		{"item of no kind", URI{Path: "p/x.pdf", Item: "equation-1"}, "p/x.pdf"},
		{"item with a slash", URI{Path: "p/x.pdf", Item: "figure-1/2"}, "p/x.pdf"},
		{"ordinary heading kept", URI{Path: "shelf/h.md", Section: "2. Results / discussion"}, "shelf/h.md#section=2.%20Results%20%2F%20discussion"},
		{"dots kept", URI{Path: "shelf/h.md", Section: "a..b"}, "shelf/h.md#section=a..b"},
		{"path with ..", URI{Path: "notes/../x.md"}, ""},
		{"absolute path", URI{Path: "/etc/passwd"}, ""},
		{"DOI without 10.", URI{DOI: "11.1/x"}, ""},
		{"arXiv id with a space", URI{ArXiv: "2401 01234"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.String()
			if got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got == "" {
				return
			}
			if _, err := Parse(got); err != nil {
				t.Errorf("Parse(%q): %v", got, err)
			}
		})
	}
}

func FuzzStringParses(f *testing.F) {
	f.Add("shelf/h.md", "../../etc/passwd", "")
	f.Add("papers/x/x.pdf", "", "figure-1")
	f.Fuzz(func(t *testing.T, p, section, region string) {
		for _, u := range []URI{{Path: p, Section: section}, {Path: p, Region: region}, {DOI: section}, {ArXiv: region}} {
			s := u.String()
			if s == "" {
				continue
			}
			got, err := Parse(s)
			if err != nil {
				t.Fatalf("String of %#v = %q, which Parse refuses: %v", u, s, err)
			}
			if got.Path != "" && got.Path != u.Path {
				t.Fatalf("String of %#v = %q, parsed back as path %q", u, s, got.Path)
			}
		}
	})
}

// TestCFIRefused: a CFI Parse would refuse cites the EPUB's item instead,
// never a URI that cannot be read back.
func TestCFIRefused(t *testing.T) {
	for _, cfi := range []string{"x", "epubcfi()", "epubcfi(/6/4\n)", "epubcfi(/6/" + strings.Repeat("2/", 600) + ")"} {
		if got := CFI("zotero:items/E77HNKG7", cfi); got != "zotero://select/library/items/E77HNKG7" {
			t.Errorf("CFI(%q) = %q", cfi, got)
		}
	}
	if got := CFI("papers/a/a.epub", "epubcfi(/6/4)"); got != "papers/a/a.epub" {
		t.Errorf("a Vault path's CFI: %q", got)
	}
}
