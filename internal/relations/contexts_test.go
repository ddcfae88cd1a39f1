package relations

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// contextsOf returns, label by label, the citing sentences textRefs finds
// in text, as "page: sentence".
func contextsOf(text string) map[string][]string {
	out := map[string][]string{}
	for _, r := range textRefs(text, true) {
		for _, c := range r.contexts {
			out[r.label] = append(out[r.label], fmt.Sprintf("%d: %s", c.Page, c.Text))
		}
	}
	return out
}

func TestCiteContexts(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
		want map[string][]string
	}{
		{
			name: "numeric, ranges and lists, across lines and pages",
			text: "A Paper\n1 Introduction\nTransformers changed sequence model-\nling [1]. Recurrent networks came first [2–4, 6].\n" +
				"We build on attention [1] and on\nmemory [5].\fAs shown in [3], it holds. Nothing here.\n" +
				"References\n[1] A. Vaswani. Attention is all you need. In NIPS, 2017.\n[2] B. Two. Second work. In ICML, 2010.\n" +
				"[3] C. Three. Third work. In ICML, 2011.\n[4] D. Four. Fourth work. In ICML, 2012.\n[5] E. Five. Fifth work. In ICML, 2013.\n" +
				"[6] F. Six. Sixth work. In ICML, 2014.\n[7] G. Seven. Uncited work. In ICML, 2015.\n",
			want: map[string][]string{
				"1": {"1: Transformers changed sequence modelling [1].", "1: We build on attention [1] and on memory [5]."},
				"2": {"1: Recurrent networks came first [2–4, 6]."},
				"3": {"1: Recurrent networks came first [2–4, 6].", "2: As shown in [3], it holds."},
				"4": {"1: Recurrent networks came first [2–4, 6]."},
				"5": {"1: We build on attention [1] and on memory [5]."},
				"6": {"1: Recurrent networks came first [2–4, 6]."},
			},
		},
		{
			name: "author–year, in the text and in parentheses",
			text: "A Paper\n1 Introduction\nFollowing Vaswani et al. (2017), we use attention. Normalisation helps\n" +
				"(Vaswani et al., 2017; Ba et al., 2016). Hinton and Salakhutdinov (2006) reduced dimensions.\n" +
				"References\nBa, J. L., Kiros, J. R., and Hinton, G. E. (2016). Layer normalization. arXiv preprint.\n\n" +
				"Hinton, G. E. and Salakhutdinov, R. R. (2006). Reducing the dimensionality of data. Science.\n\n" +
				"Vaswani, A., Shazeer, N., and Parmar, N. (2017). Attention is all you need. In NIPS.\n",
			want: map[string][]string{
				"Ba et al., 2016":                {"1: Normalisation helps (Vaswani et al., 2017; Ba et al., 2016)."},
				"Hinton and Salakhutdinov, 2006": {"1: Hinton and Salakhutdinov (2006) reduced dimensions."},
				"Vaswani et al., 2017":           {"1: Following Vaswani et al. (2017), we use attention.", "1: Normalisation helps (Vaswani et al., 2017; Ba et al., 2016)."},
			},
		},
		{
			name: "a citation cut by a page break, the page number between",
			text: "A Paper\n1 Introduction\nLayer norm is used widely (Smith, 2019; Ba and\nKiros,\n7\f2016). Then [Vas17 is no citation.\n" +
				"References\nBa, J. and Kiros, J. (2016). Layer normalization. arXiv preprint.\n\n" +
				"Smith, A. (2019). A survey of normalisation. Journal.\n",
			want: map[string][]string{
				"Ba and Kiros, 2016": {"1: Layer norm is used widely (Smith, 2019; Ba and Kiros, 2016)."},
				"Smith, 2019":        {"1: Layer norm is used widely (Smith, 2019; Ba and Kiros, 2016)."},
			},
		},
		{
			name: "a sentence cut by a page break, the running head and page number between",
			text: "Running Head of the Paper\nA Paper\n1 Introduction\nAttention is used widely [1]. Recurrent networks were long the\nstandard for sequence\n1\f" +
				"Running Head of the Paper\ntransduction [2], and con-\n2\f" +
				"Running Head of the Paper\nvolutions followed [3]. The end.\n3\f" +
				"Running Head of the Paper\nReferences\n[1] A. Vaswani. Attention is all you need. In NIPS, 2017.\n[2] B. Two. Second work. In ICML, 2010.\n" +
				"[3] C. Three. Third work. In ICML, 2011.\n",
			want: map[string][]string{
				"1": {"1: Attention is used widely [1]."},
				"2": {"2: Recurrent networks were long the standard for sequence transduction [2], and convolutions followed [3]."},
				"3": {"3: Recurrent networks were long the standard for sequence transduction [2], and convolutions followed [3]."},
			},
		},
		{
			name: "an author–year citation on the page after its sentence starts",
			text: "Journal of Tests 12\nA Paper\n1 Introduction\nLayer normalisation, which fixes the statistics of each\n\f" +
				"Journal of Tests 13\nlayer, is used widely (Ba and Kiros, 2016).\n\fJournal of Tests 14\nMore text.\n" +
				"References\nBa, J. and Kiros, J. (2016). Layer normalization. arXiv preprint.\n",
			want: map[string][]string{
				"Ba and Kiros, 2016": {"2: Layer normalisation, which fixes the statistics of each layer, is used widely (Ba and Kiros, 2016)."},
			},
		},
		{
			name: "a page after a footnote or a new sentence takes nothing of the page before",
			text: "A Paper\n1 Introduction\nRecurrent networks are the state of the art in sequence modeling and\n\n* Equal contribution\n\narXiv:1706.03762v5 [cs.CL] 6 Dec 2017\n\f" +
				"transduction problems [1]. Attention came later.\nOur model\n\fUses attention [1].\n" +
				"References\n[1] A. Vaswani. Attention is all you need. In NIPS, 2017.\n",
			want: map[string][]string{
				"1": {"2: transduction problems [1].", "3: Uses attention [1]."},
			},
		},
		{
			name: "a hyphenated surname broken at its hyphen",
			text: "A Paper\n1 Introduction\nText extraction is studied (Smith, 2019; Al-\nRashid and Haddad, 2022). Tables are well-\nknown.\n" +
				"References\nAl-Rashid, M. and Haddad, Y. (2022). Robust text extraction. Journal.\n\n" +
				"Smith, A. (2019). A survey of normalisation. Journal.\n",
			want: map[string][]string{
				"Al-Rashid and Haddad, 2022": {"1: Text extraction is studied (Smith, 2019; Al-Rashid and Haddad, 2022)."},
				"Smith, 2019":                {"1: Text extraction is studied (Smith, 2019; Al-Rashid and Haddad, 2022)."},
			},
		},
		{
			name: "two works of one first author and year, told apart by the second",
			text: "A Paper\n1 Introduction\nPassages are ranked (Whitaker and Costa, 2018). Captions are written by Whitaker and\nWhitaker (2018).\n" +
				"References\nWhitaker, I. and Costa, S. (2018). Dense passage ranking. Journal.\n\n" +
				"Whitaker, I. and Whitaker, V. (2018). Figure caption generation. Journal.\n",
			want: map[string][]string{
				"Whitaker and Costa, 2018":    {"1: Passages are ranked (Whitaker and Costa, 2018)."},
				"Whitaker and Whitaker, 2018": {"1: Captions are written by Whitaker and Whitaker (2018)."},
			},
		},
		{
			name: "alpha labels",
			text: "A Paper\n1 Introduction\nAttention [Vas17] and layer norm [BKH16, Vas17] are used. See also [Knu84].\n" +
				"References\n[BKH16] J. Ba, J. Kiros, and G. Hinton. Layer normalization. arXiv, 2016.\n" +
				"[Vas17] A. Vaswani. Attention is all you need. In NIPS, 2017.\n",
			want: map[string][]string{
				"BKH16": {"1: Attention [Vas17] and layer norm [BKH16, Vas17] are used."},
				"Vas17": {"1: Attention [Vas17] and layer norm [BKH16, Vas17] are used."},
			},
		},
		{
			name: "superscripts",
			text: "A Paper\n1 Introduction\nDeep networks1,2 learn features. ResNet50 is no citation. Attention3 followed.\n" +
				"References\n1. A. One. First work. Nature, 2010.\n2. B. Two. Second work. Nature, 2011.\n3. C. Three. Third work. Nature, 2012.\n",
			want: map[string][]string{
				"1": {"1: Deep networks1,2 learn features."},
				"2": {"1: Deep networks1,2 learn features."},
				"3": {"1: Attention3 followed."},
			},
		},
		{
			name: "a label that repeats cites neither entry",
			text: "A Paper\nIntro\nWe cite [Vas17] twice.\nReferences\n[Vas17] A. Vaswani. Attention is all you need. In NIPS, 2017.\n" +
				"[Vas17] A. Vaswani. Attention is all you need, again. In NIPS, 2017.\n[Ba16] J. Ba. Layer normalization. arXiv, 2016.\n",
			want: map[string][]string{},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, contextsOf(tt.text)); diff != "" {
				t.Errorf("contexts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCiteContextsBounded: hostile bodies and lists give bounded answers
// quickly: a body of 100,000 bracketed numbers, 5,000 entries, a sentence
// far longer than a context.
func TestCiteContextsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("A Paper\nIntro\n")
	for i := range 100000 {
		fmt.Fprintf(&b, "x [%d] ", i%7000)
	}
	b.WriteString("\nReferences\n")
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "[%d] A. Author%d. Title number %d of a list. In Venue, 2020.\n", i, i, i)
	}
	start := time.Now()
	refs := textRefs(b.String(), true)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if len(refs) > maxEntries {
		t.Errorf("%d references, want at most %d", len(refs), maxEntries)
	}
	for _, r := range refs {
		if len(r.contexts) > maxContexts {
			t.Fatalf("%s: %d contexts, want at most %d", r.label, len(r.contexts), maxContexts)
		}
		for _, c := range r.contexts {
			if n := len([]rune(c.Text)); n > maxContextRunes {
				t.Fatalf("%s: context of %d runes, want at most %d", r.label, n, maxContextRunes)
			}
		}
	}
	if len(refs) == 0 || len(refs[0].contexts) == 0 {
		t.Errorf("the first entry has no context")
	}
}
