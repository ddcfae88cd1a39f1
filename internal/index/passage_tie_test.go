package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBestPassageTieBreak checks how passages of equal coverage (the same
// distinct query terms) are told apart: the one that mentions the terms
// more often wins, whether the passages are windows of whole sentences or
// cuts inside one long sentence; with that equal too, the first one.
func TestBestPassageTieBreak(t *testing.T) {
	ix := sampleIndex()
	tests := []struct {
		name, text, query string
		max               int
		want              string
	}{
		{
			"later sentence mentions the terms more often",
			"Graphene mobility was measured once.\nFiller text about copper.\nGraphene mobility, graphene mobility and graphene again.",
			"graphene mobility", 60,
			"Graphene mobility, graphene mobility and graphene again.",
		},
		{
			"earlier sentence mentions the terms more often",
			"Graphene mobility, graphene mobility and graphene again.\nFiller text about copper.\nGraphene mobility was measured once.",
			"graphene mobility", 60,
			"Graphene mobility, graphene mobility and graphene again.",
		},
		{
			"equal mentions: the first",
			"Graphene mobility first.\nFiller text about copper.\nGraphene mobility second.",
			"graphene mobility", 26,
			"Graphene mobility first.",
		},
		{
			"inside one long sentence",
			"graphene mobility was low while copper, nickel, iron, zinc, tin and lead were studied, and graphene mobility graphene mobility then rose",
			"graphene mobility", 40,
			"graphene mobility graphene mobility then",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := ix.BestPassage(tt.text, tt.query, tt.max)
			if diff := cmp.Diff(tt.want, tt.text[s:e]); diff != "" {
				t.Errorf("passage (-want +got):\n%s", diff)
			}
		})
	}
}
