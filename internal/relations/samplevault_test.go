package relations

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/samplevault"
)

// card renders a work the way a relation card shows it: title, library
// paper (or -), citation URI (or -), and the overlap for related papers.
func card(w Work) string {
	p, u := w.Paper, w.CitationURI()
	if p == "" {
		p = "-"
	}
	if u == "" {
		u = "-"
	}
	s := fmt.Sprintf("%s | %s | %s", w.Title, p, u)
	if w.Overlap > 0 {
		s += fmt.Sprintf(" | %d", w.Overlap)
	}
	return s
}

func cards(ws []Work) []string {
	var out []string
	for _, w := range ws {
		out = append(out, card(w))
	}
	return out
}

// TestSampleVault checks the designed cases listed in the sample vault's
// README ("References, cited-by and related").
func TestSampleVault(t *testing.T) {
	dir := t.TempDir()
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	v, err := catalog.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l := New(v, nil)

	const (
		sba       = "Strided Block Attention for Long Document Encoding | papers/2401.01234 | papers/2401.01234/2401.01234.pdf"
		rtm       = "Routing Tokens to Memory Slots for Long-Document Question Answering | papers/2403.05678 | papers/2403.05678/2403.05678.pdf"
		survey    = "Sparse Attention for Long Documents: A Short Survey | papers/2406.09876 | papers/2406.09876/2406.09876.pdf"
		resnet    = "Residual Pathways for Shallow Image Classifiers | papers/vision/resnet-like | papers/vision/resnet-like/paper.pdf"
		window    = "How Wide Should a Local Window Be? Evidence from Legal and Scientific Documents | papers/local-window-eval | papers/local-window-eval/local-window-eval.PDF"
		vaswani   = "Attention Is All You Need | - | https://arxiv.org/abs/1706.03762"
		longf     = "Longformer: The Long-Document Transformer | - | https://arxiv.org/abs/2004.05150"
		bigbird   = "Big Bird: Transformers for Longer Sequences | - | https://arxiv.org/abs/2007.14062"
		kowalczyk = "Notes on block-sparse kernels | - | -"
	)
	tests := []struct {
		ref                          string
		references, citedBy, related []string
	}{
		{
			ref: "papers/2401.01234",
			references: []string{vaswani, longf, bigbird, resnet,
				"FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness | - | https://arxiv.org/abs/2205.14135",
				kowalczyk},
			// Scan entries 1 and 2 are the library papers that also cite
			// it by their sidecars: listed once. The reproduction study
			// does not borrow the seed's path.
			citedBy: []string{rtm, survey,
				"Strided Block Attention for Long Document Encoding: A Reproduction Study | - | https://doi.org/10.5555/repro.2024.0310",
				"Chunked Recurrence for Book-Length Summarisation | - | https://arxiv.org/abs/2409.11223",
				"Sparse Kernels on Consumer GPUs (workshop abstract) | - | -"},
			// A direct citation counts 2, a shared reference or citer 1.
			// rtm cites it, shares Vaswani and Longformer and is cited
			// with it by the survey; the survey cites it and shares
			// Vaswani and BigBird; it cites resnet; the survey cites it
			// and local-window-eval.
			related: []string{rtm + " | 5", survey + " | 4", resnet + " | 2", window + " | 1"},
		},
		{
			ref: "papers/2403.05678",
			references: []string{sba, longf, vaswani,
				"Neural Turing Machines | - | https://arxiv.org/abs/1410.5401",
				"Natural Questions: A Benchmark for Question Answering Research | - | https://doi.org/10.1162/tacl_a_00276"},
			citedBy: []string{survey,
				"Multi-Hop Reading over Long Technical Manuals | - | https://doi.org/10.5555/ltqa.2025.0004"},
			// sba: cited, shares Vaswani and Longformer, co-cited by the
			// survey; survey: cites it, shares Vaswani and a citation of
			// sba; local-window-eval: co-cited by the survey.
			related: []string{sba + " | 5", survey + " | 4", window + " | 1"},
		},
		{
			ref:        "papers/2406.09876",
			references: []string{vaswani, sba, window, bigbird, rtm, kowalczyk},
			// Cites all three; sba and rtm share Vaswani, and each also
			// shares a further reference (BigBird, the citation of sba).
			related: []string{sba + " | 4", rtm + " | 4", window + " | 2"},
		},
		{
			ref: "papers/vision/resnet-like",
			citedBy: []string{sba,
				"Gated Shortcuts in Tiny Vision Transformers | - | https://arxiv.org/abs/2405.00321"},
			related: []string{sba + " | 2"}, // sba cites nothing else in the library
		},
		{
			// Its PDF cites 2401.01234, but without a sidecar or a text
			// hook only the survey's title localMatch links it.
			ref:     "papers/local-window-eval",
			citedBy: []string{survey},
			related: []string{survey + " | 2", sba + " | 1", rtm + " | 1"},
		},
		{ref: "papers/vision/patch-tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			r := mustRelations(t, l, tt.ref)
			if r.Err != nil || r.Skipped != 0 {
				t.Errorf("Err = %v, Skipped = %d; want none", r.Err, r.Skipped)
			}
			for _, c := range []struct {
				name      string
				want, got []string
			}{
				{"references", tt.references, cards(r.References)},
				{"cited-by", tt.citedBy, cards(r.CitedBy)},
				{"related", tt.related, cards(r.Related)},
			} {
				if diff := cmp.Diff(c.want, c.got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

// TestSampleVaultTextFallback: with a text hook, local-window-eval (no
// sidecar) cites 2401.01234 through the arXiv id in its reference list.
func TestSampleVaultTextFallback(t *testing.T) {
	dir := t.TempDir()
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	v, err := catalog.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var asked []string
	l := New(v, &Options{Text: func(_ context.Context, p *catalog.Paper) (string, error) {
		asked = append(asked, p.Ref)
		if p.Ref != "papers/local-window-eval" {
			return "", nil
		}
		// The reference list of local-window-eval.PDF as its text layer has it.
		return "How Wide Should a Local Window Be?\nReferences\n" +
			"[1] M. Okafor, T. Lindqvist, H. Sato. Strided block attention for long document encoding. 2024. arXiv:2401.01234.\n" +
			"[2] I. Beltagy, M. E. Peters, A. Cohan. Longformer: The long-document transformer. 2020. arXiv:2004.05150.\n", nil
	}})
	r := mustRelations(t, l, "papers/local-window-eval")
	want := []string{
		"Strided Block Attention for Long Document Encoding | papers/2401.01234 | papers/2401.01234/2401.01234.pdf",
		// The entry's parsed title names the work outside the library.
		"Longformer: The long-document transformer | - | https://arxiv.org/abs/2004.05150",
	}
	if diff := cmp.Diff(want, cards(r.References)); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	// Only the papers with a PDF and no sidecar are read.
	if diff := cmp.Diff([]string{"papers/local-window-eval", "papers/vision/resnet-like"}, asked); diff != "" {
		t.Errorf("Text called for (-want +got):\n%s", diff)
	}
	sba := mustRelations(t, l, "papers/2401.01234")
	if got := cards(sba.CitedBy); len(got) < 3 || got[2] != "How Wide Should a Local Window Be? Evidence from Legal and Scientific Documents | papers/local-window-eval | papers/local-window-eval/local-window-eval.PDF" {
		t.Errorf("sba cited-by = %q, want local-window-eval third", got)
	}
}
