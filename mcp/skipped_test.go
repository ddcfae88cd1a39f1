package mcp

import (
	"strings"
	"testing"

	"github.com/researchctx/researchctx/tools"
)

// The text a model reads says which documents a search could not read, and
// that it is partial, as the structured content does.
func TestRenderSearchSkipped(t *testing.T) {
	out := &tools.SearchOutput{
		Cards:   []tools.Card{},
		Partial: true,
		Skipped: []tools.Skipped{
			{Path: "shelf/broken.pdf", Reason: "malformed: damaged, or not a PDF"},
			{Path: "shelf/locked.pdf", Reason: "encrypted: it does not open without a password"},
		},
		SkippedMore: 3,
	}
	txt := renderSearch(tools.SearchInput{Query: "quokkas"}, out)
	for _, want := range []string{
		"Partial: not everything granted was searched",
		"Could not be read, so not searched: shelf/broken.pdf (malformed: damaged, or not a PDF); shelf/locked.pdf (encrypted: it does not open without a password); and 3 more.",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "more matched") {
		t.Errorf("a partial search says more matched:\n%s", txt)
	}
	frameSearch(out, "")
	if !strings.Contains(out.Note, "Partial") {
		t.Errorf("note %q does not say the search is partial", out.Note)
	}
}
