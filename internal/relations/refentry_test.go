package relations

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// TestParseEntry parses one synthetic entry per bibliography style.
func TestParseEntry(t *testing.T) {
	tests := []struct {
		style, raw string
		want       Entry
	}{
		{"NeurIPS / ACL, first names first",
			"Jane Q. Doe, Rui Silva, and Ola Nordmann. Sparse windows for long documents. In Advances in Neural Information Processing Systems, pages 1–9, 2021.",
			Entry{Authors: []string{"Jane Q. Doe", "Rui Silva", "Ola Nordmann"}, Title: "Sparse windows for long documents", Year: 2021, Venue: "Advances in Neural Information Processing Systems, pages 1–9, 2021"}},
		{"CVPR, initials first",
			"J. Doe, R. Silva, and O. Nordmann. Fast R-CNN revisited: a second look. In CVPR, 2015.",
			Entry{Authors: []string{"J. Doe", "R. Silva", "O. Nordmann"}, Title: "Fast R-CNN revisited: a second look", Year: 2015, Venue: "CVPR, 2015"}},
		{"IEEE, quoted title",
			`J. Doe and R. Silva, “Windowed attention for retrieval,” IEEE Trans. Pattern Anal. Mach. Intell., vol. 12, no. 3, pp. 1–10, 2019.`,
			Entry{Authors: []string{"J. Doe", "R. Silva"}, Title: "Windowed attention for retrieval", Year: 2019, Venue: "IEEE Trans. Pattern Anal. Mach. Intell., vol. 12, no. 3, pp. 1–10, 2019"}},
		{"IEEE, straight quotes and a question",
			`O. Nordmann, "Do windows help?" in Proc. Workshop on Long Texts, 2020.`,
			Entry{Authors: []string{"O. Nordmann"}, Title: "Do windows help?", Year: 2020, Venue: "Proc. Workshop on Long Texts, 2020"}},
		{"APA, year in parentheses",
			"Doe, J., Silva, R., & Nordmann, O. (2018). Learning to skim: A study of windows. Journal of Reading Machines, 4(2), 33–41.",
			Entry{Authors: []string{"Doe, J.", "Silva, R.", "Nordmann, O."}, Title: "Learning to skim: A study of windows", Year: 2018, Venue: "Journal of Reading Machines, 4(2), 33–41"}},
		{"ACL author–year with a letter",
			"Doe, J. and Silva, R. (2014a). Windows: new features and speed improvements. In ICML’14.",
			Entry{Authors: []string{"Doe, J.", "Silva, R."}, Title: "Windows: new features and speed improvements", Year: 2014, Venue: "ICML’14"}},
		{"ICML, surname and first name",
			"Sutskever, Ilya, Martens, James, and Hinton, Geoffrey E. On the importance of initialization and momentum. In ICML, 2013.",
			Entry{Authors: []string{"Sutskever, Ilya", "Martens, James", "Hinton, Geoffrey E."}, Title: "On the importance of initialization and momentum", Year: 2013, Venue: "ICML, 2013"}},
		{"ICML, a given name with an inner capital",
			"Mao, Mark Z., Ranzato, Marc’Aurelio, and Ng, Andrew Y. Large scale distributed windows. In NIPS, 2012.",
			Entry{Authors: []string{"Mao, Mark Z.", "Ranzato, Marc’Aurelio", "Ng, Andrew Y."}, Title: "Large scale distributed windows", Year: 2012, Venue: "NIPS, 2012"}},
		{"CVPR, a particle shortened after an initial",
			"N. Doe, A. v. d. Oord, and K. Silva. Windows in linear time. arXiv:1610.10099, 2016.",
			Entry{Authors: []string{"N. Doe", "A. v. d. Oord", "K. Silva"}, Title: "Windows in linear time", Year: 2016, Venue: "arXiv:1610.10099, 2016", ArXivID: "1610.10099"}},
		{"ICML, one author",
			"Jiang, Jing. A literature survey on domain adaptation of statistical classifiers, 2008.",
			Entry{Authors: []string{"Jiang, Jing"}, Title: "A literature survey on domain adaptation of statistical classifiers", Year: 2008}},
		{"ACM, year after the authors",
			"Jane Doe and Rui Silva. 2007. The window holder's dilemma: Buy, sell, or slide? Commun. ACM 50, 1 (Jan. 2007), 36–44. https://doi.org/10.1145/1188913.1188915",
			Entry{Authors: []string{"Jane Doe", "Rui Silva"}, Title: "The window holder's dilemma: Buy, sell, or slide?", Year: 2007, Venue: "Commun. ACM 50, 1 (Jan. 2007), 36–44", DOI: "10.1145/1188913.1188915"}},
		{"ACM small capitals",
			"DOE, J., SILVA, R., AND NORDMANN, O. Designing window architectures using reinforcement learning. arXiv preprint arXiv:1611.02167 (2016).",
			Entry{Authors: []string{"DOE, J.", "SILVA, R.", "NORDMANN, O."}, Title: "Designing window architectures using reinforcement learning", Year: 2016, Venue: "arXiv preprint arXiv:1611.02167 (2016)", ArXivID: "1611.02167"}},
		{"Nature, initials after the surname and an ampersand",
			"Doe, J., Silva, R. & Nordmann, O. G. Windows in medical imaging: Overview and future promise. Nature Methods 13, 35–35 (2016).",
			Entry{Authors: []string{"Doe, J.", "Silva, R.", "Nordmann, O. G."}, Title: "Windows in medical imaging: Overview and future promise", Year: 2016, Venue: "Nature Methods 13, 35–35 (2016)"}},
		{"Nature, et al.",
			"Litjens, G. et al. Windows as a tool for increased accuracy. Scientific Reports 6, 26286 (2016).",
			Entry{Authors: []string{"Litjens, G."}, Title: "Windows as a tool for increased accuracy", Year: 2016, Venue: "Scientific Reports 6, 26286 (2016)"}},
		{"Springer LNCS, colon after the authors",
			"Doe, J., Silva, R.: Window search over long documents. In: Proc. of the 3rd Workshop on Reading, pp. 1–12. Springer (2019)",
			Entry{Authors: []string{"Doe, J.", "Silva, R."}, Title: "Window search over long documents", Year: 2019, Venue: "Proc. of the 3rd Workshop on Reading, pp. 1–12. Springer (2019)"}},
		{"arXiv only, CoRR notation",
			"Dzmitry Bahdanau, Kyunghyun Cho, and Yoshua Bengio. Neural machine translation by jointly learning to align and translate. CoRR, abs/1409.0473, 2014.",
			Entry{Authors: []string{"Dzmitry Bahdanau", "Kyunghyun Cho", "Yoshua Bengio"}, Title: "Neural machine translation by jointly learning to align and translate", Year: 2014, Venue: "CoRR, abs/1409.0473, 2014", ArXivID: "1409.0473"}},
		{"a title with a year after it",
			"A. Vedaldi and B. Fulkerson. VLFeat: An open and portable library of computer vision algorithms, 2008.",
			Entry{Authors: []string{"A. Vedaldi", "B. Fulkerson"}, Title: "VLFeat: An open and portable library of computer vision algorithms", Year: 2008}},
		{"a book with vol.",
			"Rasmussen, C. E. & Williams, C. K. I. Gaussian processes for machine learning, vol. 1 (MIT press Cambridge, 2006).",
			Entry{Authors: []string{"Rasmussen, C. E.", "Williams, C. K. I."}, Title: "Gaussian processes for machine learning", Year: 2006}},
		{"physics, commas between everything",
			"J. G. P. Berman and J. F. M. Izrailev, Stability of nonlinear modes, Physica D 88, 445 (1983).",
			Entry{Authors: []string{"J. G. P. Berman", "J. F. M. Izrailev"}, Title: "Stability of nonlinear modes", Year: 1983, Venue: "Physica D 88, 445 (1983)"}},
		{"physics, a book",
			"N. D. Birrell and P. C. W. Davies, Quantum Fields in Curved Space (Cambridge University Press, 1982).",
			Entry{Authors: []string{"N. D. Birrell", "P. C. W. Davies"}, Title: "Quantum Fields in Curved Space", Year: 1982, Venue: "1982"}},
		{"IEEE, an unquoted book title after the names",
			"J. Doe, M. Silva, and N. D. Nordmann, Window Shift in Machine Reading. MIT Press, 2009.",
			Entry{Authors: []string{"J. Doe", "M. Silva", "N. D. Nordmann"}, Title: "Window Shift in Machine Reading", Year: 2009, Venue: "MIT Press, 2009"}},
		{"IEEE, an unquoted book title in capitals, then its publisher",
			"U. Doe, Y. Silva, and D. Nordmann, HANDS: A Pattern-Theoretic Study of Windows. Springer-Verlag, 1991.",
			Entry{Authors: []string{"U. Doe", "Y. Silva", "D. Nordmann"}, Title: "HANDS: A Pattern-Theoretic Study of Windows", Year: 1991, Venue: "Springer-Verlag, 1991"}},
		{"AMS, names written out and commas between everything",
			"Jane Doe, Rui Silva, and Ola van Nordmann, Windows for long documents, Journal of Reading Machines 26 (2022), 145–163.",
			Entry{Authors: []string{"Jane Doe", "Rui Silva", "Ola van Nordmann"}, Title: "Windows for long documents", Year: 2022, Venue: "Journal of Reading Machines 26 (2022), 145–163"}},
		{"AMS, one author and a book",
			"Claude Doe, Statistical windows with structured priors, 2nd ed., Cambridge University Press, Cambridge, 2019.",
			Entry{Authors: []string{"Claude Doe"}, Title: "Statistical windows with structured priors", Year: 2019, Venue: "2nd ed., Cambridge University Press, Cambridge, 2019"}},
		{"physics, no title printed",
			"R. P. Feynman, Phys. Rev. 94, 262 (1954).",
			Entry{Authors: []string{"R. P. Feynman"}, Year: 1954, Venue: "Phys. Rev. 94, 262 (1954)"}},
		{"Japanese corner brackets",
			"松山 道夫，「TEX 読み物その 3 TEX の成立ちに関する諸々」． http://www.example.org/texread3.pdf",
			Entry{Authors: []string{"松山 道夫"}, Title: "TEX 読み物その 3 TEX の成立ちに関する諸々"}},
		{"software, one sentence before its link",
			"InterMezzo. http://www.inter-mezzo.org, 2003.",
			Entry{Title: "InterMezzo", Year: 2003}},
		{"an arXiv id is not a year",
			"Alpha. arXiv:2001.00001.",
			Entry{Title: "Alpha", ArXivID: "2001.00001"}},
		{"no author list",
			"An aside on windows, then more text.",
			Entry{Title: "An aside on windows, then more text"}},
	}
	for _, tt := range tests {
		t.Run(tt.style, func(t *testing.T) {
			got := ParseEntry(tt.raw)
			if got.Raw != tt.raw {
				t.Errorf("Raw = %q, want the entry", got.Raw)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Entry{}, "Raw")); diff != "" {
				t.Errorf("ParseEntry (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEntries finds, splits and parses reference sections as PDF text
// lays them out.
func TestEntries(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // titles
	}{
		{"numbered in brackets, hyphenation, page furniture and an appendix",
			"Intro text.\n\fJournal of Windows 12\n1 Conclusion\nDone.\n\fJournal of Windows 13\nR EFERENCES\n" +
				"[1] J. Doe and R. Silva. Learning long-term dependen-\ncies with windows. In ICML, 2015.\n" +
				"[2] R. Silva. Encoder-\nDecoder windows. In NIPS, 2014.\n14\n\fJournal of Windows 14\n" +
				"[3] O. Nordmann. A third window. arXiv:1706.03762, 2017.\n" +
				"A. Appendix Material\nMore text that cites nothing.\n\fJournal of Windows 15\n",
			[]string{"Learning long-term dependencies with windows", "Encoder-Decoder windows", "A third window"}},
		{"a list of one entry",
			"Body.\nReferences\n[1] J. Doe. Alone. In X, 2001.\n", []string{"Alone"}},
		{"numbered with full stops",
			"Body.\nReferences\n1. Doe, J. Windows. Nature 1, 2–3 (2015).\n2. Silva, R. & Doe, J. More windows. Nature 2, 4–5 (2016).\n",
			[]string{"Windows", "More windows"}},
		{"author–year hanging entries without markers",
			"Body.\n7 References\nDoe, J. and Silva, R. (2011). Domain adaptation via pseudo windows.\nIn Proceedings of EMNLP, pages 355–362.\n" +
				"Nordmann, O. (2012). Theano windows: new features\nand speed improvements. Workshop.\nSilva, R., Doe, J.,\nand Nordmann, O. (2013). A third one. In ICLR.\n",
			[]string{"Domain adaptation via pseudo windows", "Theano windows: new features and speed improvements", "A third one"}},
		{"author–year entries with first names, a book's publisher and an editor on lines of their own",
			"References\nAndrew E. Barron. Complexity regularization. In\nG. Roussas, editor, Nonparametric Estimation, pages 561–576.\nKluwer Academic Publishers, 1991.\n" +
				"Ian Goodfellow and Quoc Le. Measuring invariances.\nIn Y. Bengio, editor, Advances 22, pages 646–654. 2009.\n" +
				"Johan H˚astad. Almost optimal lower bounds. In STOC, 1986.\n",
			[]string{"Complexity regularization", "Measuring invariances", "Almost optimal lower bounds"}},
		{"author–year entries without a year, initials without full stops",
			"References\nDesjardins, Guillaume and Doe, Jane. Natural\nwindows. (unpublished).\n\nDuchi, John and Silva, Rui. Adaptive windows\nfor online reading. JMLR, 2011.\n\n" +
				"Doe, J. and Silva, R. Efficient windows. Springer, 1998b.\n\nLyu, S and Simoncelli, E P. Nonlinear window\nnormalization. In CVPR, 2008.\n",
			[]string{"Natural windows", "Adaptive windows for online reading", "Efficient windows", "Nonlinear window normalization"}},
		{"author–year entries whose authors and year fill the first line, a title in title case",
			"References\nDoe, J. (2021). Windows. Nature 1, 2–3.\n\nWei, L., Silva, R. and Nordmann, O. (2022).\nMemory Slots and Gated Windows: An Empirical Study.\nIn Proceedings of ICML pp. 1–9.\n\n" +
				"Jane Doe and Rui Silva. 2007.\nShutters and Doors. Commun. ACM 50, 1.\n",
			[]string{"Windows", "Memory Slots and Gated Windows: An Empirical Study", "Shutters and Doors"}},
		{"heading glued to the line before it",
			"error (%)References\n\n[1] J. Doe. Deep windows. In CVPR, 2016.\n[2] R. Silva. Shallow windows. In CVPR, 2017.\n",
			[]string{"Deep windows", "Shallow windows"}},
		{"Bibliography, numbered entries far apart",
			"Body.\nBibliography\n[1] J. Doe. One. In X, 2001.\n\n[2] J. Doe. Two. In X, 2002.\n\n[3] J. Doe. Three. In X, 2003.\n",
			[]string{"One", "Two", "Three"}},
		{"no heading: a numbered list in the last third",
			strings.Repeat("Body line.\n", 8) + "[1] J. Doe. One. In X, 2001.\n[2] J. Doe. Two. In X, 2002.\n[3] J. Doe. Three. In X, 2003.\n",
			[]string{"One", "Two", "Three"}},
		{"a body line ending in References, then prose: not a heading",
			"As the survey in the References\nshows, windows help. Doe, J. (2001) agrees.\nSilva, R. (2002). More. Venue.\n", nil},
		{"no heading and no numbers: nothing", strings.Repeat("Doe, J. (2001). Body line. X.\n", 9), nil},
		{"alpha labels, one entry running over two lines",
			"Body.\nReferences\n[Doe01] Jane Doe. Windows with\nshutters. In X, 2001.\n[DS02a] Jane Doe and Rui Silva. Doors. In Y, 2002.\n[ABC+19] A. Adams et al. Walls. Z, 2019.\n",
			[]string{"Windows with shutters", "Doors", "Walls"}},
		{"author–year labels in brackets",
			"References\n\n[Doe and Silva, 2011] Doe, J. and Silva, R. (2011). Pseudo windows.\nIn Proceedings of EMNLP.\n\n[Nordmann et al., 2012] Nordmann, O., Doe, J., and Silva, R. (2012). Theano\nwindows. Workshop.\n",
			[]string{"Pseudo windows", "Theano windows"}},
		{"labels in a 1989 paper set by hand, a continuation line that opens with a bracket",
			"References\n[Ab] Karl Abrahamson, Lisa Higham. Solitude on a Ring. Proceedings of PODC.\nCalgary, Canada. 1986.\n[Ba] Norman Bailey. The Theory of Diseases.\n[Online] Hafner Press, 1975.\n",
			[]string{"Solitude on a Ring", "The Theory of Diseases"}},
		{"IEEE: numbers win over a few bracketed words",
			"References\n[1] J. Doe, \"Windows,\" 2001.\n[Online]. Available: http://x.org\n[2] R. Silva, \"Doors,\" 2002.\n[Online]. Available: http://y.org\n[3] O. Nordmann, \"Walls,\" 2003.\n",
			[]string{"Windows", "Doors", "Walls"}},
		{"author–year with initials first and one author (abbrvnat)",
			"References\nR. Deshpande and E. Petrova. Strided tokens revisited. arXiv\npreprint arXiv:2305.01234, 2023.\nC. Dubois. Statistical Learning with Priors. Cambridge University\nPress, 2019.\nS. K. Oduya. Layout-aware pretraining. In ICDAR, 2021.\n",
			[]string{"Strided tokens revisited", "Statistical Learning with Priors", "Layout-aware pretraining"}},
		{"an abbreviated journal opening a line is no author",
			"References\nDoe, J. and Silva, R. (2011). Long windows in the\nwall.\nJ. Mach. Learn. Res., 12:1–10.\nNordmann, O. (2012). Short windows. X.\n",
			[]string{"Long windows in the wall", "Short windows"}},
		{"a question in a lower-cased title goes on",
			"References\n[1] P. Natarajan. When do retrieval models hallucinate? a controlled analysis. In Findings of ACL, 2023.\n[2] R. Silva. Why? Because. In X, 2002.\n",
			[]string{"When do retrieval models hallucinate? a controlled analysis", "Why?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Entries(tt.text) {
				got = append(got, e.Title)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("titles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEntriesBounded: a hostile reference section (one huge line, endless
// numbered entries) is cut to the caps, quickly.
func TestEntriesBounded(t *testing.T) {
	huge := "References\n[1] " + strings.Repeat("A. B. ", 1<<17) + "\n"
	if es := Entries(huge); len(es) != 1 || len([]rune(es[0].Raw)) > maxEntryRunes {
		t.Errorf("one huge entry: got %d entries, want one of at most %d runes", len(es), maxEntryRunes)
	}
	var b strings.Builder
	b.WriteString("References\n")
	for i := 1; i <= 3*maxEntries; i++ {
		b.WriteString("[" + strconv.Itoa(i%1000) + "] J. Doe. A title. In X, 2001.\n")
	}
	if es := Entries(b.String()); len(es) > maxEntries {
		t.Errorf("%d entries, want at most %d", len(es), maxEntries)
	}
}

// BenchmarkEntries parses the reference sections of real papers (the
// pdftotext text of the corpus), as the text fallback does once per PDF
// version.
func BenchmarkEntries(b *testing.B) {
	dir := corpus.Dir(b, "ref-pdftotext")
	var texts []string
	for _, f := range []string{"arxiv-1706.03762.txt", "tkde-survey09.txt", "scirep-leibig.txt", "arxiv-1409.0473.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(data))
	}
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			textIDs(t)
		}
	}
}

// FuzzEntries: any text parses without panicking, within the caps, and
// every field is valid UTF-8 when the text is.
func FuzzEntries(f *testing.F) {
	for _, s := range []string{
		"References\n[1] J. Doe. A title. In X, 2001.\n[2] R. Silva, “Quoted,” 2002.\n",
		"R EFERENCES\nDoe, J. (2001). Title. Venue.\n\nSilva, R. 2002. Title two. Venue.\n",
		"x\fReferences\n1. A. B, C. D., Title, Phys. Rev. 1, 2 (1999).\n2. 「題」．\n",
		"References\n[1] 10.1000/ab-\n12 arXiv:2401.01234v2 (",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		es := Entries(text)
		if len(es) > maxEntries {
			t.Fatalf("%d entries", len(es))
		}
		for _, e := range es {
			if utf8.ValidString(text) && (!utf8.ValidString(e.Title) || !utf8.ValidString(e.Venue)) {
				t.Fatalf("invalid UTF-8 in %+v", e)
			}
		}
		textIDs(text)
	})
}

// TestEntriesAcrossPages: an entry's last line opening the next page is
// kept though it repeats on every page once digits are ignored; the
// running head is dropped.
func TestEntriesAcrossPages(t *testing.T) {
	text := "References\n[1] J. Doe. One title.\n\fJ. Windows 12\nIn CVPR, 2015.\n[2] J. Doe. Two title.\n\fJ. Windows 13\nIn CVPR, 2016.\n" +
		"[3] J. Doe. Three title.\n\fJ. Windows 14\nIn CVPR, 2017.\n[4] J. Doe. Four. In X, 2001.\n"
	var got []string
	for _, e := range Entries(text) {
		got = append(got, fmt.Sprintf("%s %d %s", e.Title, e.Year, e.Venue))
	}
	want := []string{"One title 2015 CVPR, 2015", "Two title 2016 CVPR, 2016", "Three title 2017 CVPR, 2017", "Four 2001 X, 2001"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}
