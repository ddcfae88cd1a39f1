package tools_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/tools"
)

// corpusCaption is one caption of internal/figure/testdata/captions.tsv,
// the hand-made truth of the corpus PDFs' figures and tables.
type corpusCaption struct {
	file, kind, number, caption string
}

func corpusCaptions(t *testing.T) []corpusCaption {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "internal", "figure", "testdata", "captions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCaption
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 5 || strings.HasPrefix(c[0], "#") {
			continue
		}
		out = append(out, corpusCaption{file: c[0], kind: c[1], number: c[2], caption: c[4]})
	}
	return out
}

// letters keeps the letters and digits of s, folded to lower case.
func letters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// TestCorpusFigureReads reads every figure and table of the corpus truth
// by its host fragment (#figure=N, #table=N, #algorithm=N) on the copied
// corpus PDFs, granted as a folder of loose PDFs, and counts the reads that
// return the caption and cite the fragment; the files measured apart are
// the held-out half of internal/figure's corpus test (every other file in
// name order). docs/benchmarks.md reports the figures.
func TestCorpusFigureReads(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	truth := corpusCaptions(t)
	paths, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus PDFs: %v", err)
	}
	var files []string
	for _, p := range paths {
		files = append(files, strings.TrimSuffix(filepath.Base(p), ".pdf"))
	}
	sort.Strings(files)
	held := map[string]bool{}
	for i, name := range files {
		held[name] = i%2 == 1
	}
	readChars, turnChars, cardChars := 600, grant.MaxBudget().TurnChars, 200
	copyCorpus := func(vault string) {
		if err := os.MkdirAll(filepath.Join(vault, "corpus"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(vault, "corpus", filepath.Base(p)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	budget := &grant.BudgetOverrides{ReadChars: &readChars, TurnChars: &turnChars, CardChars: &cardChars}
	f := newFixtureWith(t, budget, copyCorpus, "corpus")
	ctx := context.Background()
	type tally struct{ n, ok int }
	var dev, out tally
	for _, c := range truth {
		if c.caption == "" {
			continue
		}
		s := &dev
		if held[c.file] {
			s = &out
		}
		s.n++
		uri := cite.Item("corpus/"+c.file+".pdf", c.kind+"-"+c.number)
		res, err := f.ts.Read(ctx, tools.ReadInput{Target: uri})
		want := []rune(letters(c.caption))
		if len(want) > 30 {
			want = want[:30]
		}
		switch {
		case err != nil:
			t.Logf("%s: %v", uri, err)
		case res.CitationURI != uri:
			t.Logf("%s: cited %q", uri, res.CitationURI)
		case !strings.Contains(letters(res.Text), string(want)):
			t.Logf("%s: text %q lacks the caption %q", uri, firstRunes(res.Text, 120), c.caption)
		default:
			s.ok++
		}
	}
	for _, r := range []struct {
		name string
		s    tally
	}{{"rules written on", dev}, {"held out", out}} {
		t.Logf("%s: %d of %d #figure=N/#table=N reads return the caption (%.3f)", r.name, r.s.ok, r.s.n, float64(r.s.ok)/float64(max(1, r.s.n)))
	}
	if rate := float64(out.ok) / float64(max(1, out.n)); rate < 0.90 {
		t.Errorf("held-out reads returning the caption: %.3f, want ≥ 0.90", rate)
	}

	// A search for a caption's words: one of the first three cards is
	// the caption, cited as its item. Each half searches in a turn of its
	// own, the budget of one turn holding about 200 searches: a new grant
	// on the same vault, so that the corpus is extracted once, not once
	// per turn.
	for _, half := range []bool{false, true} {
		g := openTurn(t, f.vault, fmt.Sprintf("rt-search-%v", half), budget, []string{"corpus"})
		n, ok := 0, 0
		for _, c := range truth {
			if c.caption == "" || held[c.file] != half {
				continue
			}
			words := strings.Fields(c.caption)
			if len(words) < 3 {
				continue // too few words to find one caption by
			}
			n++
			q := strings.Join(words[:min(len(words), 8)], " ")
			res, err := g.ts.Search(ctx, tools.SearchInput{Query: q, Source: "corpus", Limit: 3})
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			uri := cite.Item("corpus/"+c.file+".pdf", c.kind+"-"+c.number)
			found := false
			for _, card := range res.Cards {
				found = found || card.CitationURI == uri
			}
			if found {
				ok++
			} else if testing.Verbose() {
				var got []string
				for _, card := range res.Cards {
					got = append(got, card.CitationURI)
				}
				t.Logf("search %q: cards %q, want %s", q, got, uri)
			}
		}
		name := "rules written on"
		if half {
			name = "held out"
		}
		t.Logf("%s: %d of %d caption searches have the item's URI in the first 3 cards (%.3f)", name, ok, n, float64(ok)/float64(max(1, n)))
	}
}

func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// An #algorithm=N read returns the algorithm's body, not its caption
// alone: a real paper's ruled Algorithm 1, its caption over its steps, and
// another's floating Algorithm 2, its steps over its caption.
func TestAlgorithmReadWhole(t *testing.T) {
	for _, tt := range []struct {
		file, uri string
		want      []string
	}{
		{"arxiv-1806.10282.pdf", "downloads/paper.pdf#algorithm=1",
			[]string{"Algorithm 1: Optimize Acquisition Function", "Input: H, r, Tlow", "foreach", "12 return The nearest ancestor"}},
		{"arxiv-1502.03167.pdf", "downloads/paper.pdf#algorithm=2",
			[]string{"Algorithm 2: Training a Batch-Normalized Network", "Input: Network N with trainable parameters", "6: Train NtrBN",
				"10: Process multiple training mini-batches", "BN, replace the transform", "12: end for"}},
	} {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), tt.file))
		if err != nil {
			t.Fatal(err)
		}
		prep := func(vault string) {
			if err := os.MkdirAll(filepath.Join(vault, "downloads"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(vault, "downloads", "paper.pdf"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := newFixtureWith(t, nil, prep, "downloads/paper.pdf")
		out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: tt.uri})
		if err != nil {
			t.Fatal(err)
		}
		if out.CitationURI != tt.uri {
			t.Errorf("cited %q, want %q", out.CitationURI, tt.uri)
		}
		for _, want := range tt.want {
			if !strings.Contains(out.Text, want) {
				t.Errorf("%s: %s lacks %q:\n%s", tt.file, tt.uri, want, out.Text)
			}
		}
	}
}

// A #table=N read returns the table's rows in reading order, its cells
// left to right, and no text of the page around it: tables whose rows
// are under their caption and over it (a document that sets every
// caption under its table, as one of them shows by its rows), in one
// column and across two.
func TestTableReadWhole(t *testing.T) {
	for _, tt := range []struct {
		file, uri string
		rows      []string // in this order
		not       []string
	}{
		{"arxiv-1406.2661.pdf", "downloads/paper.pdf#table=1",
			[]string{"Table 1: Parzen window-based", "Model | MNIST TFD", "DBN [3] | 138 ± 2 1909 ± 66", "Adversarial nets | 225 ± 2 2057 ± 26"},
			[]string{"of the Gaussians was obtained"}},
		{"arxiv-1409.3215.pdf", "downloads/paper.pdf#table=1",
			[]string{"Table 1: The performance of the LSTM", "Method test BLEU score (ntst14)", "Bahdanau et al. [2] 28.45", "Ensemble of 5 reversed LSTMs, beam size 12 34.81"},
			[]string{"Rescoring the baseline 1000-best", "Table 2"}},
		{"arxiv-1706.03762.pdf", "downloads/paper.pdf#table=4",
			[]string{"Table 4: The Transformer generalizes well", "Parser | Training WSJ 23 F1", "Petrov et al. (2006) [29] | WSJ only, discriminative 90.4", "Dyer et al. (2016) [8] | generative 93.3"},
			[]string{"In Table 3 rows (B)"}},
		{"aps-revtex-sample.pdf", "downloads/paper.pdf#table=2",
			[]string{"TABLE II. This is a wide table", "Ion 1st alternative", "Ag (4k)a | (4h)a", "The z parameter of these positions"},
			[]string{"earlier in the document", "Tables I, II, III, and IV show"}},
	} {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), tt.file))
		if err != nil {
			t.Fatal(err)
		}
		prep := func(vault string) {
			if err := os.MkdirAll(filepath.Join(vault, "downloads"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(vault, "downloads", "paper.pdf"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := newFixtureWith(t, nil, prep, "downloads/paper.pdf")
		out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: tt.uri})
		if err != nil {
			t.Fatal(err)
		}
		if out.CitationURI != tt.uri {
			t.Errorf("%s: cited %q, want %q", tt.file, out.CitationURI, tt.uri)
		}
		at := -1
		for _, row := range tt.rows {
			i := strings.Index(out.Text, row)
			if i < 0 || i < at {
				t.Errorf("%s: %s lacks %q after the rows before it:\n%s", tt.file, tt.uri, row, out.Text)
				continue
			}
			at = i
		}
		for _, s := range tt.not {
			if strings.Contains(out.Text, s) {
				t.Errorf("%s: %s holds %q, text around the table:\n%s", tt.file, tt.uri, s, out.Text)
			}
		}
	}
}
