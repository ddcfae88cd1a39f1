package pdf

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// The quality gate compares each page with pdftotext's output for it.
//
// Tokenisation (both sides alike): first a hyphen that ends a line after a
// letter, when the next line starts with a lower-case letter, is removed with
// the line break (pdftotext joins such words; Page.Text keeps the hyphen as
// printed). Then NFKC and Unicode case folding; a token
// is a maximal run of letters, digits and combining marks, except that each
// Han, Hiragana, Katakana or Hangul character is a token of its own (those
// scripts put no spaces between words). Everything else separates tokens.
//
// Per page: word-bag F1 is the F1 of the token multisets; adjacent-word
// agreement is the F1 of the multisets of adjacent token pairs (bigrams) in
// reading order, so it measures order as well as content. Pages whose
// reference has no tokens (the image-only scan) are left out of the means.
// Means are over pages, all files pooled; the CJK mean pools the zh-* and
// ja-* files. The gate also requires that at least 95 % of outline items
// (Document.Headings) are anchored to a line of their page.

var folder = cases.Fold()

var lineEndHyphen = regexp.MustCompile(`(\pL)-\n(\p{Ll})`)

func tokens(s string) []string {
	s = lineEndHyphen.ReplaceAllString(s, "$1$2")
	s = folder.String(norm.NFKC.String(s))
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case isCJK(r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func bagF1(ref, got []string) float64 {
	if len(ref) == 0 && len(got) == 0 {
		return 1
	}
	m := map[string]int{}
	for _, t := range ref {
		m[t]++
	}
	common := 0
	for _, t := range got {
		if m[t] > 0 {
			m[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p := float64(common) / float64(len(got))
	r := float64(common) / float64(len(ref))
	return 2 * p * r / (p + r)
}

func bigrams(ts []string) []string {
	var out []string
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i-1]+"\x00"+ts[i])
	}
	return out
}

type fileScore struct {
	name           string
	pages, scored  int
	f1, adj        float64 // sums over scored pages
	noText, errors int
	err            error
}

func TestCorpusQuality(t *testing.T) {
	pdfDir := corpus.Dir(t, "pdfs")
	refDir := corpus.Dir(t, "ref-pdftotext")
	files, err := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in the corpus: %v", err)
	}
	sort.Strings(files)
	docs := extractCorpus(t, files)
	var scores []fileScore
	var sumF1, sumAdj, cjkF1 float64
	var n, cjkN int
	var outlineN, anchored int // outline headings, and those found on their page
	failed := false
	for _, path := range files {
		name := filepath.Base(path)
		fs := fileScore{name: name}
		ref, err := os.ReadFile(filepath.Join(refDir, strings.TrimSuffix(name, ".pdf")+".txt"))
		if err != nil {
			t.Errorf("%s: reference: %v", name, err)
			continue
		}
		refPages := strings.Split(string(ref), "\f")
		d, err := docs[path].doc, docs[path].err
		if err != nil {
			fs.err = err
			failed = true
			scores = append(scores, fs)
			continue
		}
		fs.pages = len(d.Pages)
		if len(d.Outline) > 0 {
			for _, h := range d.Headings() {
				outlineN++
				if h.Line >= 0 {
					anchored++
				}
			}
		}
		cjk := strings.HasPrefix(name, "zh-") || strings.HasPrefix(name, "ja-")
		for i, p := range d.Pages {
			if p.Err != nil {
				fs.errors++
				failed = true
				t.Errorf("%s page %d: %v", name, p.Number, p.Err)
			}
			if p.NoTextLayer {
				fs.noText++
			}
			if i >= len(refPages) {
				continue
			}
			rt := tokens(refPages[i])
			if len(rt) == 0 {
				continue
			}
			gt := tokens(p.Text)
			f1 := bagF1(rt, gt)
			adj := bagF1(bigrams(rt), bigrams(gt))
			fs.scored++
			fs.f1 += f1
			fs.adj += adj
			sumF1 += f1
			sumAdj += adj
			n++
			if cjk {
				cjkF1 += f1
				cjkN++
			}
		}
		if name == "pwl-impossibility-scan.pdf" && fs.noText != fs.pages {
			failed = true
			t.Errorf("%s: %d of %d pages reported NoTextLayer, want all", name, fs.noText, fs.pages)
		}
		scores = append(scores, fs)
	}
	meanF1, meanAdj, meanCJK := sumF1/float64(max(n, 1)), sumAdj/float64(max(n, 1)), cjkF1/float64(max(cjkN, 1))
	var tb strings.Builder
	fmt.Fprintf(&tb, "%-32s %5s %6s %6s %6s %s\n", "file", "pages", "F1", "adj", "notext", "error")
	for _, s := range scores {
		f1, adj := 0.0, 0.0
		if s.scored > 0 {
			f1, adj = s.f1/float64(s.scored), s.adj/float64(s.scored)
		}
		fmt.Fprintf(&tb, "%-32s %5d %6.3f %6.3f %6d %v\n", s.name, s.pages, f1, adj, s.noText, s.err)
	}
	fmt.Fprintf(&tb, "mean over %d pages: F1 %.4f, adjacent-word %.4f; CJK F1 %.4f over %d pages\n", n, meanF1, meanAdj, meanCJK, cjkN)
	anchorRate := float64(anchored) / float64(max(outlineN, 1))
	fmt.Fprintf(&tb, "outline headings anchored to a line of their page: %d of %d (%.1f %%)\n", anchored, outlineN, 100*anchorRate)
	if meanF1 < 0.98 || meanAdj < 0.94 || meanCJK < 0.98 || anchorRate < 0.95 {
		failed = true
	}
	if failed || testing.Verbose() {
		t.Log("\n" + tb.String())
	}
	if failed {
		t.Errorf("quality gate: want mean F1 ≥ 0.98, adjacent-word ≥ 0.94, CJK F1 ≥ 0.98, outline anchoring ≥ 95 %% and no failures")
	}
}

// isCJK reports Han, Hiragana, Katakana and Hangul letters, which are
// written without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
