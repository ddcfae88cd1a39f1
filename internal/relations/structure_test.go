package relations

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// structureEntry is what TestEntriesByStructure checks of an entry.
type structureEntry struct {
	First, Title, Label string
	Authors, Year       int
}

// names returns n made-up author names in a style: "apa" ("Nameaa, A.
// B."), "initials" ("A. B. Nameaa") or "vancouver" ("Nameaa AB").
func names(n int, style string) []string {
	out := make([]string, n)
	for i := range out {
		sur := fmt.Sprintf("Name%c%c", 'a'+i%26, 'a'+(i*7)%26)
		a, b := 'A'+rune(i%26), 'B'+rune(i%20)
		switch style {
		case "apa":
			out[i] = fmt.Sprintf("%s, %c. %c.", sur, a, b)
		case "initials":
			out[i] = fmt.Sprintf("%c. %c. %s", a, b, sur)
		default:
			out[i] = fmt.Sprintf("%s %c%c", sur, a, b)
		}
	}
	return out
}

// typeset sets an entry's text as lines of at most 80 bytes, broken at
// spaces, as a narrow column breaks a long author list.
func typeset(s string) []string {
	var lines []string
	for len(s) > 80 {
		i := strings.LastIndexByte(s[:80], ' ')
		lines = append(lines, s[:i])
		s = s[i+1:]
	}
	return append(lines, s)
}

// structureCases are two reference lists, author–year and numbered, each
// with an entry whose author list (forty names and more, no "et al.")
// runs over more lines than an entry's title and venue take, a
// collaboration, and "and 40 others".
var structureCases = []struct {
	name    string
	entries []string
	want    []structureEntry
}{
	{
		name: "author-year",
		entries: []string{
			strings.Join(names(48, "apa"), ", ") + " (2012). Observation of a new particle in the search for the Standard Model Higgs boson. Physics Letters B, 716(1):1-29.",
			"Ba, J. L., Kiros, J. R., and Hinton, G. E. (2016). Layer normalization. arXiv preprint.",
			"The ATLAS Collaboration (2015). Search for new phenomena in final states with an energetic jet. The European Physical Journal C, 75:299.",
			"Vaswani, A., Shazeer, N., and 40 others (2017). Attention is all you need. In Advances in Neural Information Processing Systems.",
		},
		want: []structureEntry{
			{First: "Nameaa, A. B.", Authors: 48, Title: "Observation of a new particle in the search for the Standard Model Higgs boson", Year: 2012, Label: "Nameaa et al., 2012"},
			{First: "Ba, J. L.", Authors: 3, Title: "Layer normalization", Year: 2016, Label: "Ba et al., 2016"},
			{First: "The ATLAS Collaboration", Authors: 1, Title: "Search for new phenomena in final states with an energetic jet", Year: 2015, Label: "ATLAS Collaboration, 2015"},
			{First: "Vaswani, A.", Authors: 3, Title: "Attention is all you need", Year: 2017, Label: "Vaswani et al., 2017"},
		},
	},
	{
		name: "numbered",
		entries: []string{
			"[1] " + strings.Join(names(44, "vancouver"), ", ") + ". Observation of a new particle in the search for the Standard Model Higgs boson. Phys Lett B. 2012;716(1):1-29.",
			"[2] " + strings.Join(names(40, "initials"), ", ") + ", and Z. Last. Combined measurement of the Higgs boson mass. Phys. Rev. Lett., 114:191803, 2015.",
			"[3] G. Aad, B. Abbott, and 2900 others. Search for new phenomena in dijet events. Eur. Phys. J. C, 75:299, 2015.",
			"[4] A. Vaswani, N. Shazeer, and N. Parmar. Attention is all you need. In NIPS, 2017.",
		},
		want: []structureEntry{
			{First: "Nameaa AB", Authors: 44, Title: "Observation of a new particle in the search for the Standard Model Higgs boson", Year: 2012, Label: "Nameaa et al., 2012"},
			{First: "A. B. Nameaa", Authors: 41, Title: "Combined measurement of the Higgs boson mass", Year: 2015, Label: "Nameaa et al., 2015"},
			{First: "G. Aad", Authors: 3, Title: "Search for new phenomena in dijet events", Year: 2015, Label: "Aad et al., 2015"},
			{First: "A. Vaswani", Authors: 3, Title: "Attention is all you need", Year: 2017, Label: "Vaswani et al., 2017"},
		},
	},
}

// structureOf is what TestEntriesByStructure checks of the entries of a
// paper's text.
func structureOf(text string) []structureEntry {
	var out []structureEntry
	for _, e := range Entries(text) {
		s := structureEntry{Authors: len(e.Authors), Title: e.Title, Year: e.Year, Label: authorYearLabel(e.Authors, e.Year)}
		if len(e.Authors) > 0 {
			s.First = e.Authors[0]
		}
		out = append(out, s)
	}
	return out
}

// TestEntriesByStructure: an entry is split where its structure ends, not
// where a line does. A PDF of each reference list (a page in Helvetica,
// entries broken into lines as a column breaks them) is read, and its
// entries' authors, titles and years are the list's own; where poppler's
// pdftotext is installed, its text of the same PDF gives the same
// entries.
func TestEntriesByStructure(t *testing.T) {
	bin, _ := exec.LookPath("pdftotext")
	for _, c := range structureCases {
		t.Run(c.name, func(t *testing.T) {
			lines := []string{"A Paper", "1 Introduction", "The body cites every work [1-4].", "References"}
			for _, e := range c.entries {
				lines = append(lines, typeset(e)...)
			}
			data := hostilepdf.Plain(lines...)
			doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var pages []string
			for _, pg := range doc.Pages {
				pages = append(pages, pg.Text)
			}
			if diff := cmp.Diff(c.want, structureOf(strings.Join(pages, "\f"))); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if bin == "" {
				t.Log("pdftotext is not installed: entries checked against the list only")
				return
			}
			path := filepath.Join(t.TempDir(), "refs.pdf")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-q", "-enc", "UTF-8", path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			if diff := cmp.Diff(c.want, structureOf(string(out))); diff != "" {
				t.Errorf("entries of pdftotext's text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCiteContextsAcrossPages: a sentence that starts at the foot of one
// page and ends at the head of the next, a running head and a page number
// between, is the context of the citations on the next page whole. The
// PDF (three pages in Helvetica) is read as the library reads it; where
// poppler's pdftotext is installed, the context is also found in its text
// of the same PDF, once its running heads and page numbers are dropped
// and its lines joined.
func TestCiteContextsAcrossPages(t *testing.T) {
	const head = "Journal of Tests, Volume 12"
	data := hostilepdf.PlainPages(
		[]string{head, "A Paper", "1 Introduction", "Attention is used widely [1]. Recurrent networks were long", "the standard for sequence", "1"},
		[]string{head, "transduction [2], and convolu-", "tional models followed", "2"},
		[]string{head, "closely [3]. Later work joined both.", "References", "[1] A. Vaswani. Attention is all you need. In NIPS, 2017.",
			"[2] B. Two. Second work. In ICML, 2010.", "[3] C. Three. Third work. In ICML, 2011.", "3"},
	)
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, pg := range doc.Pages {
		pages = append(pages, pg.Text)
	}
	const whole = "Recurrent networks were long the standard for sequence transduction [2], and convolutional models followed closely [3]."
	want := map[string][]string{
		"1": {"1: Attention is used widely [1]."},
		"2": {"2: " + whole},
		"3": {"3: " + whole},
	}
	if diff := cmp.Diff(want, contextsOf(strings.Join(pages, "\f"))); diff != "" {
		t.Errorf("contexts (-want +got):\n%s", diff)
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	path := filepath.Join(t.TempDir(), "across.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-q", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	joined := ""
	for _, l := range strings.Split(strings.ReplaceAll(string(out), "\f", "\n"), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == head || strings.Trim(l, "0123456789") == "" {
			continue
		}
		if j, ok := textnorm.JoinHyphenated(joined, l); ok {
			joined = j
		} else if joined != "" {
			joined += " " + l
		} else {
			joined = l
		}
	}
	if !strings.Contains(joined, whole) {
		t.Errorf("pdftotext's text %q does not hold %q", joined, whole)
	}
}
