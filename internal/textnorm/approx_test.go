package textnorm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// approxPages is a three-page document as the PDF extractor gives it: a
// running header and page numbers, ligatures, a line-end hyphenation, a
// table with its caption, and a sentence that runs onto the next page.
var approxPages = []string{
	"Attention Is All You Need\n\nAbstract\nThe dominant sequence transduction models are based on complex recurrent or\n" +
		"convolutional neural networks that include an encoder and a decoder. The best performing models also\n" +
		"connect the encoder and decoder through an attention mechanism.\n\n1 Introduction\n" +
		"Recurrent neural networks, long short-term memory and gated recurrent neural networks in particular,\n" +
		"have been firmly established as state of the art approaches in sequence modeling and transduction\n" +
		"problems such as language modeling and machine translation. This inherently sequential nature\n" +
		"precludes parallelization within training examples, which becomes critical at longer sequence\n" +
		"lengths, as memory constraints limit batching across examples.\n\n1",
	"Published as a conference paper\n\n3.5 Positional Encoding\n" +
		"Since our model contains no recurrence and no convolution, in order for the model to make use of the\n" +
		"order of the sequence, we must inject some information about the relative or absolute position of the\n" +
		"tokens in the sequence. To this end, we add \"positional encodings\" to the input embeddings at the\n" +
		"bottoms of the encoder and decoder stacks. The positional encodings have the same dimension dmodel\n" +
		"as the embeddings, so that the two can be summed. There are many choices of positional encodings,\n" +
		"learned and fixed. In this work, we use sine and cosine functions of different frequencies.\n" +
		"We trained with a learning rate of 10−4 and the ﬁnal dropout rate was 0.1, which is a signiﬁcant\n" +
		"regularisation of the model. The model was trained for 300,000 steps on eight GPUs over a period\n" +
		"of three and a half days; this is the longest training run we report, and its con-\n" +
		"vergence was slow at first.\n\n" +
		"Table 2: BLEU scores and training cost of the models.\n" +
		"Model BLEU EN-DE BLEU EN-FR Training cost\n" +
		"ByteNet 23.75 39.2 1.0\n" +
		"Transformer 28.4 41.8 2.3\n\n" +
		"The big model outperforms the best previously reported models by more than 2.0 BLEU, establishing\n" +
		"a new state-of-the-art BLEU score of 28.4 on the English-to-German translation task. Even our base\n" +
		"model surpasses all previously published models and ensembles at a fraction of the training cost. We\n\n2",
	"Published as a conference paper\n\n" +
		"estimate the number of floating point operations used to train a model by multiplying the training\n" +
		"time, the number of GPUs used, and an estimate of the sustained single-precision floating-point\n" +
		"capacity of each GPU. For the base models we used a beam size of four and a length penalty of 0.6.\n\n" +
		"6 Conclusion\nIn this work, we presented the Transformer, the first sequence transduction model based\n" +
		"entirely on attention, replacing the recurrent layers most commonly used in encoder-decoder\n" +
		"architectures with multi-headed self-attention.\n\n3",
}

func TestFindQuote(t *testing.T) {
	type found struct {
		Found, Exact bool
		Part         int
		Text         string // the located passage, verbatim
	}
	tests := []struct {
		name  string
		quote string
		want  found
	}{
		{"exact", "we use sine and cosine functions of different frequencies",
			found{true, true, 1, "we use sine and cosine functions of different frequencies"}},
		{"exact with ligatures and hyphenation", "the final dropout rate was 0.1, which is a significant regularisation",
			found{true, true, 1, "the ﬁnal dropout rate was 0.1, which is a signiﬁcant\nregularisation"}},
		{"exact across a line-end hyphenation", "this is the longest training run we report, and its convergence was slow at first",
			found{true, true, 1, "this is the longest training run we report, and its con-\nvergence was slow at first"}},
		{"hyphenated word at the end", "this is the longest training run we reported, and its convergence",
			found{true, false, 1, "this is the longest training run we report, and its con-\nvergence"}},
		{"word changed", "We use sine and cosine functions with different frequencies",
			found{true, false, 1, "we use sine and cosine functions of different frequencies"}},
		{"words dropped", "positional encodings have the same dimension as the embeddings so the two can be summed",
			found{true, false, 1, "positional encodings have the same dimension dmodel\nas the embeddings, so that the two can be summed"}},
		{"word added", "The model was definitely trained for 300,000 steps on eight GPUs",
			found{true, false, 1, "The model was trained for 300,000 steps on eight GPUs"}},
		{"other inflections", "recurrent neural network, long short-term memories and gated recurrent neural network in particular, have been firmly establishing",
			found{true, false, 0, "Recurrent neural networks, long short-term memory and gated recurrent neural networks in particular,\nhave been firmly established"}},
		{"numbers and symbols", "We trained with a learning rate of 10^-4 and the final dropout rate was 0.1",
			found{true, false, 1, "We trained with a learning rate of 10−4 and the ﬁnal dropout rate was 0.1"}},
		{"line-end hyphenation and a changed word", "this is the longest training run we reported, and its convergence was slow at first",
			found{true, false, 1, "this is the longest training run we report, and its con-\nvergence was slow at first"}},
		{"hyphenation as copied", "the longest training run we reported, and its con- vergence was slow",
			found{true, false, 1, "the longest training run we report, and its con-\nvergence was slow"}},
		{"across a page break", "Even our base model surpasses all previously published models and ensembles at a fraction of the training cost. We estimate the number of floating point operations used to train a model",
			found{true, false, 1, "Even our base\nmodel surpasses all previously published models and ensembles at a fraction of the training cost. We"}},
		// "2.0 BLEU" adds nothing: the table holds "BLEU", "2" and "0".
		{"across a table", "its convergence was slow at first. The big model outperforms the best previously reported models by more than 2.0 BLEU",
			found{true, false, 1, "its con-\nvergence was slow at first.\n\nTable 2: BLEU scores and training cost of the models.\nModel BLEU EN-DE BLEU EN-FR Training cost\nByteNet 23.75 39.2 1.0\nTransformer 28.4 41.8 2.3\n\nThe big model outperforms the best previously reported models by more than"}},
		{"caption into table cells in another order", "BLEU scores and training cost of the models. Model Training cost BLEU EN-DE BLEU EN-FR",
			found{true, false, 1, "BLEU scores and training cost of the models.\nModel BLEU EN-DE BLEU EN-FR Training cost"}},
		{"clause moved", "so that the two can be summed, the positional encodings have the same dimension as the embeddings",
			found{true, false, 1, "The positional encodings have the same dimension dmodel\nas the embeddings, so that the two can be summed"}},
		{"partial sentence with a cut word", "ly established as state of the art approaches in sequence modelling and transduction",
			found{true, false, 0, "established as state of the art approaches in sequence modeling and transduction"}},
		{"short quote, exact", "attention mechanism",
			found{true, true, 0, "attention mechanism"}},
		{"short quote, inexact", "attention mechanisms",
			found{Part: 0}},
		{"another paper", "Convolutional networks were trained on ImageNet with stochastic gradient descent and a momentum of 0.9",
			found{Part: 0}},
		{"no words", "—", found{}},
	}
	x := NewQuoteIndex(approxPages)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := x.Find(tt.quote)
			got := found{Found: r.Found, Exact: r.Exact, Part: r.Part}
			if r.Found {
				got.Text = approxPages[r.Part][r.Start:r.End]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find(%q) (-want +got):\n%s", tt.quote, diff)
			}
			switch {
			case r.Exact && r.Score != 1:
				t.Errorf("exact match with score %v", r.Score)
			case r.Found && !r.Exact && (r.Score < MinQuoteScore || r.Score >= 1):
				t.Errorf("approximate match with score %v, want in [%v, 1)", r.Score, MinQuoteScore)
			case !r.Found && r.Score >= MinQuoteScore:
				t.Errorf("not found with score %v", r.Score)
			}
			if r.Found && r.EndPart < r.Part {
				t.Errorf("EndPart %d before Part %d", r.EndPart, r.Part)
			}
		})
	}
}

// TestFindQuoteAcrossPageBreak: a passage that runs onto the next page says
// where it ends there, so that a caller can return and cite both pages.
func TestFindQuoteAcrossPageBreak(t *testing.T) {
	r := NewQuoteIndex(approxPages).Find("Even our base model surpasses all previously published models and ensembles at a fraction of the training cost. We estimate the number of floating point operations used to train a model")
	if !r.Found || r.Part != 1 || r.EndPart != 2 {
		t.Fatalf("Find = %+v, want a passage from part 1 to part 2", r)
	}
	if got, want := approxPages[2][:r.EndPartEnd], "Published as a conference paper\n\nestimate the number of floating point operations used to train a model"; got != want {
		t.Errorf("the passage's end on the next page: %q, want %q", got, want)
	}
	if r := NewQuoteIndex(approxPages).Find("the first sequence transduction model based entirely on attention"); r.EndPart != r.Part || r.EndPartEnd != r.End {
		t.Errorf("a passage on one page: %+v, want EndPart = Part and EndPartEnd = End", r)
	}
}

func TestFindQuoteHints(t *testing.T) {
	x := NewQuoteIndex(approxPages)
	r := x.Find("Convolutional networks were trained on ImageNet with stochastic gradient descent and a momentum of 0.9")
	if r.Found || len(r.Hints) == 0 || len(r.Hints) > 3 {
		t.Fatalf("Find = %+v, want not found with one to three hint pages", r)
	}
	for _, h := range r.Hints {
		if h < 0 || h >= len(approxPages) {
			t.Errorf("hint %d is not a page", h)
		}
	}
	if r := x.Find("The cat sat on the mat while the dog barked at the mailman all afternoon"); r.Found || len(r.Hints) != 0 {
		t.Errorf("a quote sharing only function words found %+v, want no passage and no hints", r)
	}
}

func TestFindQuoteCountsExactMatches(t *testing.T) {
	pages := []string{"the encoder stack maps the input", "nothing here", "again the encoder stack maps the input, and the encoder stack maps the input"}
	r := FindQuote(pages, "encoder stack maps the input")
	want := QuoteResult{Found: true, Exact: true, Score: 1, Part: 0, Start: 4, End: 32, EndPartEnd: 32, Matches: 3}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("FindQuote (-want +got):\n%s", diff)
	}
}

func TestFindQuoteEdges(t *testing.T) {
	for _, tt := range []struct {
		name  string
		pages []string
		quote string
	}{
		{"no pages", nil, "some words of a quote here"},
		{"empty pages", []string{"", ""}, "some words of a quote here"},
		{"empty quote", approxPages, "  "},
		{"invalid utf-8", []string{"a\xff\xfeb encod-\n\xffings"}, "encod\xffings a b c d"},
		{"only hyphens", []string{"a-\n-\n-b"}, "-\n-"},
		{"long quote", approxPages, strings.Repeat("sequence transduction ", 500)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := FindQuote(tt.pages, tt.quote)
			if r.Found && (r.Part >= len(tt.pages) || r.Start > r.End || r.End > len(tt.pages[r.Part])) {
				t.Errorf("FindQuote = %+v: span outside the pages", r)
			}
		})
	}
}

func BenchmarkFindQuote(b *testing.B) {
	pages := make([]string, 30)
	for i := range pages {
		pages[i] = approxPages[i%len(approxPages)] + strings.Repeat(" filler text of a page", 200)
	}
	x := NewQuoteIndex(pages)
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			x.Find("positional encodings have the same dimension as the embeddings so the two can be summed")
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			NewQuoteIndex(pages)
		}
	})
}

// TestFindQuoteConcurrent: the index cache serves several documents to
// concurrent callers with the same results as one caller gets.
func TestFindQuoteConcurrent(t *testing.T) {
	docs := [][]string{approxPages, {"the encoder stack maps the input", "and the decoder reads it back"}}
	quotes := []string{"We use sine and cosine functions with different frequencies", "the decoder reads it back", "encoder stack maps the input"}
	want := map[[2]int]QuoteResult{}
	for d, doc := range docs {
		for q, quote := range quotes {
			want[[2]int{d, q}] = NewQuoteIndex(doc).Find(quote)
		}
	}
	errs := make(chan string, 64)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				d, q := (g+i)%len(docs), i%len(quotes)
				if got := FindQuote(docs[d], quotes[q]); !cmp.Equal(got, want[[2]int{d, q}]) {
					errs <- cmp.Diff(want[[2]int{d, q}], got)
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("concurrent FindQuote differs (-want +got):\n%s", e)
	}
}

func TestFindQuoteLong(t *testing.T) {
	quote := "we use sine and cosine functions of different frequencies " + strings.Repeat("x", 20000)
	r := FindQuote(approxPages, quote)
	if r.Exact || r.Score >= 1 {
		t.Errorf("a quote cut to its beginning reported as exact: %+v", r)
	}
}

// FuzzFindQuote: any pages and quote give a result inside the pages, and
// an exact result is what Locate finds.
func FuzzFindQuote(f *testing.F) {
	f.Add("the encoder-\nde- coder ﬁnal stack", "a-\nb\u00ad c", "encoder decoder final", "decoder stack of the final")
	f.Add(approxPages[0], approxPages[1], "We use sine and cosine functions with different frequencies", "注意力机制 データ")
	f.Add("\x00\xff-\n-", "", "-\n-", "\u00ad")
	f.Fuzz(func(t *testing.T, p1, p2, q1, q2 string) {
		pages := []string{p1, p2, p1 + p2}
		for _, q := range []string{q1, q2, q1 + " " + q2} {
			r := NewQuoteIndex(pages).Find(q)
			if !r.Found {
				if r.Exact || len(r.Hints) > 3 {
					t.Fatalf("not found yet %+v", r)
				}
				continue
			}
			if r.Part < 0 || r.Part >= len(pages) || r.Start < 0 || r.Start > r.End || r.End > len(pages[r.Part]) || r.EndPart < r.Part || r.EndPart >= len(pages) {
				t.Fatalf("span outside the pages: %+v", r)
			}
			if r.Exact && len(Locate(pages[r.Part], q)) == 0 {
				t.Fatalf("exact, but Locate finds nothing on part %d: %+v", r.Part, r)
			}
			if r.Score < 0 || r.Score > 1 {
				t.Fatalf("score %v", r.Score)
			}
		}
	})
}
