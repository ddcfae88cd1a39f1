package relations

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

func readFixture(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestTextIDs(t *testing.T) {
	got := sectionIDs(readFixture(t, "refs.txt"))
	want := []ref{
		{arxiv: "1706.03762"},
		{doi: "10.1145/1188913.1188915"}, // joined across the line break
		// 10.1109/CVPR. is cut at the line end and cannot be joined: dropped.
		{doi: "10.1016/0010-0277(88)90032-x"}, // balanced parentheses kept
		{doi: "10.1000/xyz"},
		{arxiv: "hep-th/9901001"},
		{arxiv: "2004.05150"},
		{arxiv: "1409.0473"},
		// arXiv:1313.00001 has no month 13: dropped. 1706.03762 again: deduplicated.
		{arxiv: "2007.14062"}, // arXiv DOI alias
		{arxiv: "2301.00001"}, // the paper's own id; the graph drops it
		{doi: "10.1000/quoted.42"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(ref{})); diff != "" {
		t.Errorf("sectionIDs mismatch (-want +got):\n%s", diff)
	}
}

func TestReferenceSection(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain heading", "intro 10.1/a\nReferences\nref 10.1/b\n", "ref 10.1/b\n"},
		{"numbered upper case", "intro\n6. REFERENCES\nref\n", "ref\n"},
		{"roman numbered with colon", "intro\nVII. References:\nref\n", "ref\n"},
		{"bibliography", "intro\n\fBibliography\nref", "ref"},
		{"Chinese", "引言\n参考文献\n[1] 某文献\n", "[1] 某文献\n"},
		{"last heading wins", "References\nold\nReferences\nnew\n", "new\n"},
		{"heading in a sentence is not one", "aaaa\nbbbb\nsee References below\ncccc\n", "see References below\ncccc\n"},
		{"no heading: last third from a line start", "line one\nline two\nline three\n", "line three\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := referenceSection(tt.text); got != tt.want {
				t.Errorf("referenceSection = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDOIAt(t *testing.T) {
	tests := []struct{ in, want string }{
		{"10.1000/abc. More", "10.1000/abc"},
		{"10.1000/abc), more", "10.1000/abc"},
		{"10.1000/a(b)c). more", "10.1000/a(b)c"},
		{"10.1000/abc]; more", "10.1000/abc"},
		{"10.1000/abc’ more", "10.1000/abc"},
		{"10.1000/. more", ""},
		{"10.1000/ab-\n12 more", "10.1000/ab-12"},
		{"10.1000/ab-\nwords", ""},
		{"10.1000/ab7.\nWords", "10.1000/ab7"}, // ends the reference
		{"10.1000/abc.\nWords", ""},            // cut short: no digit left
	}
	for _, tt := range tests {
		m := doiRe().FindStringIndex(tt.in)
		if m == nil {
			t.Fatalf("no DOI in %q", tt.in)
		}
		if got := doiAt(tt.in, m[0], m[1]); got != tt.want {
			t.Errorf("doiAt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// textLibrary is a Vault where papers/x has no sidecar and its PDF text is
// refs.txt: its references come from that text.
func textLibrary(tb testing.TB) map[string]string {
	return map[string]string{
		"papers/x/metadata.json": js(tb, obj{"title": "Sliding Windows Revisited", "arxiv_id": "2301.00001v2"}),
		"papers/x/x.pdf":         "%PDF-1.4 x\n",
		"papers/y/metadata.json": js(tb, obj{"title": "Attention", "arxiv_id": "1706.03762"}),
		"papers/y/y.pdf":         "%PDF-1.4 y\n",
		"papers/z/metadata.json": js(tb, obj{"title": "Troll", "doi": "https://doi.org/10.1145/1188913.1188915"}),
		"papers/z/z.pdf":         "%PDF-1.4 z\n",
		"papers/w/NOTES.md":      "no PDF, no sidecar\n",
	}
}

func TestTextFallback(t *testing.T) {
	v, dir := openVault(t, textLibrary(t))
	fixture := readFixture(t, "refs.txt")
	calls := map[string]int{}
	l := New(v, &Options{
		Revalidate: time.Nanosecond,
		Text: func(ctx context.Context, p *catalog.Paper) (string, error) {
			calls[p.Ref]++ // builds are serialised: no lock needed
			switch p.Ref {
			case "papers/x":
				return fixture, nil
			case "papers/y":
				return "", errors.New("no text layer")
			}
			return "nothing cited\n", nil
		},
	})
	r := mustRelations(t, l, "papers/x")
	// Each entry is a card with its parsed title, first authors and year;
	// an entry naming a library paper by identifier takes the library's
	// metadata, and its label as printed. The cut DOI of [3] is dropped,
	// [12] is the paper itself.
	want := []Work{
		{Title: "Attention", Authors: []string{"A. Vaswani"}, Year: 2017, ArXivID: "1706.03762", Paper: "papers/y", PDF: "papers/y/y.pdf", Label: "1"},
		{Title: "Troll", Authors: []string{"S. Someone"}, Year: 2007, DOI: "10.1145/1188913.1188915", Paper: "papers/z", PDF: "papers/z/z.pdf", Label: "2"},
		{Title: "A CVPR paper", Authors: []string{"T. Other"}, Year: 2008, Label: "3"},
		{Title: "Connectionism and cognitive architecture", Authors: []string{"J. Fodor"}, Year: 1988, DOI: "10.1016/0010-0277(88)90032-x", Label: "4"},
		{Title: "An aside (see ), then more text", DOI: "10.1000/xyz", Label: "5"},
		{Title: "The large N limit", Authors: []string{"J. Maldacena"}, Year: 1999, ArXivID: "hep-th/9901001", Label: "6"},
		{Title: "Longformer", Authors: []string{"I. Beltagy"}, ArXivID: "2004.05150", Label: "7"},
		{Title: "Neural machine translation", Authors: []string{"D. Bahdanau"}, Year: 2014, ArXivID: "1409.0473", Label: "8"},
		{Title: "Not a real id", Label: "9"}, // what follows is an identifier, not the title
		{Title: "Big Bird", Authors: []string{"M. Zaheer"}, ArXivID: "2007.14062", Label: "11"},
		{Title: "A quoted one", DOI: "10.1000/quoted.42", Label: "13"},
	}
	if diff := cmp.Diff(want, r.References); diff != "" {
		t.Errorf("references from text (-want +got):\n%s", diff)
	}
	y := mustRelations(t, l, "papers/y")
	if diff := cmp.Diff([]Work{{Title: "Sliding Windows Revisited", ArXivID: "2301.00001", Paper: "papers/x", PDF: "papers/x/x.pdf", Label: "1"}}, y.CitedBy); diff != "" {
		t.Errorf("cited-by from text (-want +got):\n%s", diff)
	}
	if y.Err == nil || !strings.Contains(y.Err.Error(), "papers/y/y.pdf") || strings.Contains(y.Err.Error(), dir) {
		t.Errorf("y.Err = %v, want the text error naming papers/y/y.pdf", y.Err)
	}
	if diff := cmp.Diff(map[string]int{"papers/x": 1, "papers/y": 1, "papers/z": 1}, calls); diff != "" {
		t.Errorf("Text calls (-want +got):\n%s", diff)
	}

	// A new sidecar for z rebuilds the graph without reading any PDF again.
	vaultfix.Write(t, dir, map[string]string{"papers/z/source/agentero-cite.json": sidecarDoc(t,
		obj{"metadata": obj{"title": "Revisited", "arxivId": "2301.00001"}})})
	z := mustRelations(t, l, "papers/z")
	if len(z.References) != 1 || z.References[0].Paper != "papers/x" {
		t.Errorf("z.References = %v, want papers/x from the new sidecar", z.References)
	}
	if calls["papers/x"] != 1 || calls["papers/y"] != 1 {
		t.Errorf("Text calls after a sidecar change = %v, want no new PDF reads", calls)
	}
	// A changed PDF is read again.
	vaultfix.Write(t, dir, map[string]string{"papers/x/x.pdf": "%PDF-1.4 x, second version\n"})
	mustRelations(t, l, "papers/x")
	if calls["papers/x"] != 2 {
		t.Errorf("Text calls for a changed PDF = %d, want 2", calls["papers/x"])
	}
}

func TestRebuildOnCacheChange(t *testing.T) {
	files := libraryFiles(t)
	v, dir := openVault(t, files)
	l := New(v, &Options{Revalidate: time.Nanosecond})
	before := mustRelations(t, l, "papers/d")
	if len(before.CitedBy) != 1 {
		t.Fatalf("d.CitedBy = %v, want one entry", before.CitedBy)
	}
	vaultfix.Write(t, dir, map[string]string{".agentero/citing-scan.json": scanDoc(t, obj{
		"papers/d": seed(obj{"s2Id": "n", "title": "New citer", "doi": "10.1/new"}),
	})})
	after := mustRelations(t, l, "papers/d")
	if diff := cmp.Diff(append(before.CitedBy, Work{Title: "New citer", DOI: "10.1/new"}), after.CitedBy); diff != "" {
		t.Errorf("after a cache change (-want +got):\n%s", diff)
	}
	// With the default interval, the graph is reused without checking.
	l2 := New(v, nil)
	mustRelations(t, l2, "papers/d")
	g := l2.g
	os.Remove(filepath.Join(dir, ".agentero", "citing-scan.json"))
	mustRelations(t, l2, "papers/d")
	if l2.g != g {
		t.Error("graph rebuilt within the revalidation interval")
	}
}
