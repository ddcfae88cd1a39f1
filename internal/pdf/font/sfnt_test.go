package font

import (
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/sfntfix"
)

// TestSfntCmapHostile checks that a cmap whose ranges cover billions of
// codes that map to nothing kept is walked only up to maxCMapVisits codes.
func TestSfntCmapHostile(t *testing.T) {
	// Format 4: 32,767 segments over all of the BMP whose range offsets
	// point past the table, so that no code has a glyph.
	segs := make([][4]uint16, 32767)
	for i := range segs {
		segs[i] = [4]uint16{0xFFFE, 0, 0, 0xFFF0}
	}
	for _, c := range []struct {
		name string
		cm   []byte
	}{
		{"format 12, 2000 groups of unassigned code points", sfntTable(hostilepdf.SparseCmapTrueType(2000), "cmap")},
		{"format 4, 32767 segments of unmapped codes", sfntfix.CmapTable(1, sfntfix.CmapFormat4(segs))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cm == nil {
				t.Fatal("no cmap table")
			}
			out := map[uint32]string{}
			// CPU time, not wall time: the walk is what is bounded, and a
			// busy machine stretches the wall clock.
			start := procstat.CPUTime()
			sfntCmap(c.cm, out)
			if el := procstat.CPUTime() - start; el > 2*time.Second {
				t.Errorf("took %v of CPU time", el)
			}
			if len(out) != 0 {
				t.Errorf("%d entries, want none", len(out))
			}
		})
	}
}

// TestSfntCmap checks the inversion of ordinary format 4 and 12 tables.
func TestSfntCmap(t *testing.T) {
	want := map[uint32]string{}
	for c := 'A'; c <= 'Z'; c++ {
		want[uint32(c-'A'+1)] = string(c)
	}
	for _, c := range []struct {
		name string
		cm   []byte
	}{
		{"format 4", sfntfix.CmapTable(1, sfntfix.CmapFormat4([][4]uint16{{'Z', 'A', uint16(1 - 'A' + 0x10000), 0}, {0xFFFF, 0xFFFF, 1, 0}}))},
		{"format 12", sfntfix.CmapTable(10, sfntfix.CmapFormat12([][3]uint32{{'A', 'M', 1}, {0x40000, 0x40010, 40}, {'N', 'Z', 14}}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := map[uint32]string{}
			sfntCmap(c.cm, out)
			if len(out) != len(want) {
				t.Errorf("%d entries, want %d: %v", len(out), len(want), out)
			}
			for g, s := range want {
				if out[g] != s {
					t.Errorf("glyph %d: %q, want %q", g, out[g], s)
				}
			}
		})
	}
}
