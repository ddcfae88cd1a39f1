package tools

import (
	"testing"

	"github.com/researchctx/researchctx/cite"
)

// TestInferMode: with no mode named, the mode is the one whose argument
// the input or the target's fragment carries, a quote before a page before
// a section before a region, and metadata when none is; a named mode wins,
// and a mode that is none of readModes is nil.
func TestInferMode(t *testing.T) {
	tests := []struct {
		name string
		in   ReadInput
		frag cite.URI
		want ReadMode
	}{
		{"nothing", ReadInput{}, cite.URI{}, ReadMetadata},
		{"named", ReadInput{Mode: ReadFull, Quote: "q", Page: 2}, cite.URI{}, ReadFull},
		{"quote", ReadInput{Quote: "q", Page: 2, Section: "s", Region: "r"}, cite.URI{}, ReadExcerpt},
		{"page over section", ReadInput{Page: 2, Section: "s", Region: "r"}, cite.URI{}, ReadPage},
		{"page fragment over section", ReadInput{Section: "s"}, cite.URI{Page: 3}, ReadPage},
		{"section over region", ReadInput{Section: "s", Region: "r"}, cite.URI{}, ReadSection},
		{"section fragment", ReadInput{}, cite.URI{Section: "Intro"}, ReadSection},
		{"region", ReadInput{Region: "figure-1"}, cite.URI{}, ReadRegion},
		{"region fragment", ReadInput{}, cite.URI{Region: "figure-1"}, ReadRegion},
		{"item fragment", ReadInput{}, cite.URI{Item: "figure=2"}, ReadRegion},
		{"cursor alone", ReadInput{Cursor: "c"}, cite.URI{}, ReadMetadata},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := inferMode(tt.in, tt.frag)
			if got == nil || got.mode != tt.want {
				t.Errorf("inferMode = %v, want %s", got, tt.want)
			}
		})
	}
	if got := inferMode(ReadInput{Mode: "bogus"}, cite.URI{}); got != nil {
		t.Errorf("inferMode of an unknown mode = %v, want nil", got.mode)
	}
}

// TestReadModesAreWhole: every mode has its reading, a mode that reads no
// document reads nothing before it, an inferred mode says from what, and
// no name is declared twice: the table is all a mode needs.
func TestReadModesAreWhole(t *testing.T) {
	seen := map[ReadMode]bool{}
	for _, m := range readModes {
		if m.mode == "" || seen[m.mode] {
			t.Errorf("mode %q: empty or declared twice", m.mode)
		}
		seen[m.mode] = true
		if m.read == nil {
			t.Errorf("mode %s: no reading", m.mode)
		}
		if (m.inferRank > 0) != (m.infers != nil) {
			t.Errorf("mode %s: inferred without a test, or the reverse", m.mode)
		}
	}
	if !readModes[0].lists {
		t.Errorf("the default mode %s does not list a directory", readModes[0].mode)
	}
}
