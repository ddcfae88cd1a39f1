package pdf

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// cmapTable wraps one subtable in a cmap table as its only (Windows)
// encoding record.
func cmapTable(eid uint16, sub []byte) []byte {
	cm := binary.BigEndian.AppendUint16(nil, 0)
	cm = binary.BigEndian.AppendUint16(cm, 1)
	cm = binary.BigEndian.AppendUint16(cm, 3)
	cm = binary.BigEndian.AppendUint16(cm, eid)
	cm = binary.BigEndian.AppendUint32(cm, 12)
	return append(cm, sub...)
}

// cmapFormat4 builds a format 4 subtable of the given segments (each end,
// start, delta, range offset), without the closing 0xFFFF segment unless
// given.
func cmapFormat4(segs [][4]uint16) []byte {
	u16 := binary.BigEndian.AppendUint16
	sub := u16(u16(u16(nil, 4), 0), 0) // format, length, language
	sub = u16(sub, uint16(2*len(segs)))
	sub = u16(u16(u16(sub, 0), 0), 0) // searchRange, entrySelector, rangeShift
	for i := range 4 {
		for _, s := range segs {
			sub = u16(sub, s[i])
		}
		if i == 0 {
			sub = u16(sub, 0) // reservedPad
		}
	}
	return sub
}

// cmapFormat12 builds a format 12 subtable of the given groups (each
// start, end, start glyph).
func cmapFormat12(groups [][3]uint32) []byte {
	u32 := binary.BigEndian.AppendUint32
	sub := binary.BigEndian.AppendUint16(nil, 12)
	sub = binary.BigEndian.AppendUint16(sub, 0)
	sub = u32(u32(u32(sub, uint32(16+12*len(groups))), 0), uint32(len(groups)))
	for _, g := range groups {
		sub = u32(u32(u32(sub, g[0]), g[1]), g[2])
	}
	return sub
}

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
		{"format 4, 32767 segments of unmapped codes", cmapTable(1, cmapFormat4(segs))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cm == nil {
				t.Fatal("no cmap table")
			}
			out := map[uint32]string{}
			start := time.Now()
			sfntCmap(c.cm, out)
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("took %v", el)
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
		{"format 4", cmapTable(1, cmapFormat4([][4]uint16{{'Z', 'A', uint16(1 - 'A' + 0x10000), 0}, {0xFFFF, 0xFFFF, 1, 0}}))},
		{"format 12", cmapTable(10, cmapFormat12([][3]uint32{{'A', 'M', 1}, {0x40000, 0x40010, 40}, {'N', 'Z', 14}}))},
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
