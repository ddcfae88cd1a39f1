package figure

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// truth is one caption of testdata/captions.tsv.
type truth struct {
	file, kind, number string
	page               int
	caption            string // "" where not checked
}

func readTruth(t *testing.T) map[string][]truth {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "captions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]truth{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 5 {
			t.Fatalf("captions.tsv: %q: want 5 columns", line)
		}
		page, err := strconv.Atoi(c[3])
		if err != nil {
			t.Fatalf("captions.tsv: %q: %v", line, err)
		}
		if c[4] == "?" {
			c[4] = ""
		}
		out[c[0]] = append(out[c[0]], truth{file: c[0], kind: c[1], number: c[2], page: page, caption: c[4]})
	}
	return out
}

// heldOut reports the files whose figures are measured apart: every other
// file of the corpus in name order, the rules having been written on the
// others.
func heldOut(files []string, name string) bool {
	i := sort.SearchStrings(files, name)
	return i%2 == 1
}

// alnum keeps the letters and digits of s, folded to lower case: pdftotext
// and this package join hyphenated words and spaces differently.
func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// captionMatches reports whether a found caption starts like the true one
// (its first 30 letters and digits after the label).
func captionMatches(found, want string) bool {
	if want == "" {
		return true
	}
	w := []rune(alnum(want))
	if len(w) > 30 {
		w = w[:30]
	}
	return strings.Contains(alnum(dropLabel(found)), string(w))
}

type score struct{ truths, found, hit, falses int }

func (s score) recall() float64 { return float64(s.hit) / float64(max(1, s.truths)) }
func (s score) false_() float64 { return float64(s.falses) / float64(max(1, s.found)) }

// TestCorpusCaptions measures caption recall (kind, number, page and
// caption) and false entries on the corpus PDFs against the hand-made
// truth in testdata/captions.tsv; docs/benchmarks.md reports the figures.
func TestCorpusCaptions(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	want := readTruth(t)
	paths, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus PDFs: %v", err)
	}
	var files []string
	for _, p := range paths {
		files = append(files, strings.TrimSuffix(filepath.Base(p), ".pdf"))
	}
	sort.Strings(files)
	var dev, held score
	var spent time.Duration
	pages := 0
	for _, name := range files {
		doc, err := extractCorpus(t, filepath.Join(dir, name+".pdf"))
		if err != nil {
			continue // an image-only scan or a refused file has no captions here
		}
		start := time.Now()
		items := Find(doc)
		spent += time.Since(start)
		pages += len(doc.Pages)
		s := &dev
		if heldOut(files, name) {
			s = &held
		}
		s.truths += len(want[name])
		s.found += len(items)
		matched := map[int]bool{}
		for _, w := range want[name] {
			ok := false
			for i, it := range items {
				if it.Kind == w.kind && it.Number == w.number && it.Page == w.page {
					matched[i] = true
					ok = captionMatches(it.Caption, w.caption)
					break
				}
			}
			if ok {
				s.hit++
			} else if testing.Verbose() {
				t.Logf("missed %s %s-%s p%d %q", name, w.kind, w.number, w.page, w.caption)
			}
		}
		for i, it := range items {
			if !matched[i] {
				s.falses++
				if testing.Verbose() {
					t.Logf("false %s %s p%d %q", name, it.ID, it.Page, it.Caption)
				}
			}
		}
	}
	t.Logf("Find: %v over %d pages", spent.Round(time.Millisecond), pages)
	for _, c := range []struct {
		name string
		s    score
	}{{"rules written on", dev}, {"held out", held}} {
		t.Logf("%s: %d captions, recall %.3f (%d), %d found, false entries %.3f (%d)",
			c.name, c.s.truths, c.s.recall(), c.s.hit, c.s.found, c.s.false_(), c.s.falses)
	}
	if r := held.recall(); r < 0.90 {
		t.Errorf("held-out caption recall %.3f, want ≥ 0.90", r)
	}
	if f := held.false_(); f > 0.05 {
		t.Errorf("held-out false entries %.3f, want ≤ 0.05", f)
	}
}

// corpusDoc extracts a PDF of the corpus.
func corpusDoc(t *testing.T, name string) *pdf.Document {
	t.Helper()
	doc, err := extractCorpus(t, filepath.Join(corpus.Dir(t, "pdfs"), name))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// extracted holds the corpus PDFs the tests extract, by path, once per
// test binary: the gates read the same files, and Find only reads a
// document.
var extracted struct {
	sync.Mutex
	docs map[string]*extraction
}

type extraction struct {
	doc *pdf.Document
	err error
}

// extractCorpus returns the text layer of the corpus PDF at path, or why
// it has none; a file it cannot read fails the test.
func extractCorpus(t *testing.T, path string) (*pdf.Document, error) {
	t.Helper()
	extracted.Lock()
	defer extracted.Unlock()
	if e, ok := extracted.docs[path]; ok {
		return e.doc, e.err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e := &extraction{}
	e.doc, e.err = pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if extracted.docs == nil {
		extracted.docs = map[string]*extraction{}
	}
	extracted.docs[path] = e
	return e.doc, e.err
}

// An algorithm is read whole: its caption alone (its body's first line
// not taken into it), then its body, which a ruled algorithm sets under
// the caption and a floating one over it, in lines long enough to pass
// for prose ("yi ← γxi + β ≡ BNγ,β(xi) // scale and shift"), or a step
// whose number the text layer sets apart from the rest of its row ("11: In
// Ninf" beside "BN, replace the transform … with"). Two real papers'
// Algorithm 1, and the floating Algorithm 2 of one, its body over its
// caption.
func TestAlgorithmBody(t *testing.T) {
	for _, tt := range []struct {
		file, id, caption string
		steps             []string
	}{
		{"arxiv-1806.10282.pdf", "algorithm-1", "Algorithm 1: Optimize Acquisition Function",
			[]string{"Input: H, r, Tlow", "Output: f , O", "2 foreach (f, θf , c) ∈ H do", "4 while Q", "12 return The nearest ancestor of fmin in H"}},
		{"arxiv-1502.03167.pdf", "algorithm-1", "Algorithm 1: Batch Normalizing Transform, applied to activation x over a mini-batch.",
			[]string{"Input: Values of x over a mini-batch", "Output: {yi = BNγ,β(xi)}", "// mini-batch mean", "// normalize", "// scale and shift"}},
		{"arxiv-1502.03167.pdf", "algorithm-2", "Algorithm 2: Training a Batch-Normalized Network",
			[]string{"Input: Network N with trainable parameters Θ;", "Output: Batch-normalized network for inference", "2: for k = 1 . . . K do",
				"6: Train NtrBN to optimize the parameters", "10: Process multiple training mini-batches B", "E[x] ← EB[µB]",
				"BN, replace the transform y = BNγ,β(x) with", "12: end for"}},
	} {
		var alg *Item
		for _, it := range Find(corpusDoc(t, tt.file)) {
			if it.ID == tt.id {
				alg = &it
			}
		}
		if alg == nil {
			t.Fatalf("%s: no %s", tt.file, tt.id)
		}
		if alg.Caption != tt.caption {
			t.Errorf("%s: caption %q, want the caption alone", tt.file, alg.Caption)
		}
		for _, step := range tt.steps {
			if !strings.Contains(alg.Text, step) {
				t.Errorf("%s: algorithm-1 lacks its step %q:\n%s", tt.file, step, alg.Text)
			}
		}
	}
}
