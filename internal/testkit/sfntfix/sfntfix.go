// Package sfntfix builds the cmap tables of TrueType (sfnt) programs for
// tests: a table of one subtable, and subtables of formats 4 and 12.
package sfntfix

import "encoding/binary"

// CmapTable wraps one subtable in a cmap table as its only (Windows)
// encoding record, of encoding eid.
func CmapTable(eid uint16, sub []byte) []byte {
	cm := binary.BigEndian.AppendUint16(nil, 0)
	cm = binary.BigEndian.AppendUint16(cm, 1)
	cm = binary.BigEndian.AppendUint16(cm, 3)
	cm = binary.BigEndian.AppendUint16(cm, eid)
	cm = binary.BigEndian.AppendUint32(cm, 12)
	return append(cm, sub...)
}

// CmapFormat4 builds a format 4 subtable of the given segments (each end,
// start, delta, range offset), without the closing 0xFFFF segment unless
// given.
func CmapFormat4(segs [][4]uint16) []byte {
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

// CmapFormat12 builds a format 12 subtable of the given groups (each
// start, end, start glyph).
func CmapFormat12(groups [][3]uint32) []byte {
	u32 := binary.BigEndian.AppendUint32
	sub := binary.BigEndian.AppendUint16(nil, 12)
	sub = binary.BigEndian.AppendUint16(sub, 0)
	sub = u32(u32(u32(sub, uint32(16+12*len(groups))), 0), uint32(len(groups)))
	for _, g := range groups {
		sub = u32(u32(u32(sub, g[0]), g[1]), g[2])
	}
	return sub
}
