package figure

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// foldWord is a word as TestCorpusCaptionWords compares it: folded
// (textnorm.Fold: case, accents, ligatures), without the punctuation
// around it, but with its hyphens, a trailing one too ("r-" of "R- CNN").
func foldWord(w string) string {
	notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
	w = strings.TrimLeftFunc(textnorm.Fold(w), notWord)
	t := strings.TrimRightFunc(w, notWord)
	if strings.HasPrefix(w[len(t):], "-") {
		t += "-"
	}
	return t
}

// maxCaptionWordsMissing bounds the caption words of the corpus that are
// no words of pdftotext's text: measured 4 (math set apart, "pdata(x)",
// and an OCR misreading), twice that allowed for another poppler.
const maxCaptionWordsMissing = 8

// popplerWords returns the words of pdftotext's text (foldWord), with the
// two halves of each word it leaves hyphenated at a line end joined too,
// with and without the hyphen.
func popplerWords(text string) map[string]bool {
	words := map[string]bool{}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		for _, w := range f {
			words[foldWord(w)] = true
		}
		if len(f) > 0 && strings.HasSuffix(f[len(f)-1], "-") && i+1 < len(lines) {
			if g := strings.Fields(lines[i+1]); len(g) > 0 {
				words[foldWord(f[len(f)-1]+g[0])] = true
				words[foldWord(strings.TrimSuffix(f[len(f)-1], "-")+g[0])] = true
			}
		}
	}
	return words
}

// TestCorpusCaptionWords: where poppler's pdftotext is installed, every
// word of every caption found in the corpus PDFs is a word of pdftotext's
// text of the same file (case and the punctuation around it aside), which
// joins a word hyphenated at a line end: a word left split there
// ("perfor-mances", "R- CNN") is not, and no caption ends with half a
// word (cut at "…unsupervised pre-"). docs/benchmarks.md reports the count before and after hyphens
// were undone.
func TestCorpusCaptionWords(t *testing.T) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	dir := corpus.Dir(t, "pdfs")
	paths, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus PDFs: %v", err)
	}
	var files []string
	for _, p := range paths {
		files = append(files, strings.TrimSuffix(filepath.Base(p), ".pdf"))
	}
	sort.Strings(files)
	var words, missing [2]int // rules written on, held out (heldOut)
	captions := 0
	var cut []string // captions that end with half a word
	for _, p := range paths {
		h := 0
		if heldOut(files, strings.TrimSuffix(filepath.Base(p), ".pdf")) {
			h = 1
		}
		doc, err := extractCorpus(t, p)
		if err != nil {
			continue
		}
		items := Find(doc)
		if len(items) == 0 {
			continue
		}
		out, err := exec.Command(bin, "-q", "-enc", "UTF-8", p, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext %s: %v", filepath.Base(p), err)
		}
		known := popplerWords(string(out))
		for _, it := range items {
			captions++
			text, _, _ := strings.Cut(it.Text, "\n\n")
			if r, _ := utf8.DecodeLastRuneInString(strings.TrimSuffix(text, "-")); strings.HasSuffix(text, "-") && unicode.IsLetter(r) {
				cut = append(cut, filepath.Base(p)+" "+it.ID)
			}
			for _, w := range strings.Fields(text) {
				a := foldWord(w)
				if a == "" {
					continue
				}
				words[h]++
				if !known[a] {
					missing[h]++
					if testing.Verbose() {
						t.Logf("%s %s: %q is no word of pdftotext's text", filepath.Base(p), it.ID, w)
					}
				}
			}
		}
	}
	t.Logf("%d captions; rules written on: %d words, %d not words of pdftotext's text; held out: %d words, %d not",
		captions, words[0], missing[0], words[1], missing[1])
	if words[0]+words[1] == 0 {
		t.Fatal("no caption words")
	}
	if len(cut) > 0 {
		t.Errorf("%d captions end with half a word, at a line-end hyphen: %v", len(cut), cut)
	}
	if m := missing[0] + missing[1]; m > maxCaptionWordsMissing {
		t.Errorf("%d caption words are no words of pdftotext's text, want at most %d", m, maxCaptionWordsMissing)
	}
}
