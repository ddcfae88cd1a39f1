package jpx

import (
	"encoding/binary"
	"testing"
)

// splitPackets reads the packets of a codestream of one tile-part in
// LRCP order and one precinct a resolution, and returns its main header,
// the tile-part's header markers (between SOT and SOD), and the packets'
// headers and bodies apart.
func splitPackets(t *testing.T, b []byte) (main, tileHeader []byte, headers, bodies [][]byte) {
	t.Helper()
	cs, err := parse(b, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	cs.mem = &budget{left: testBytes, max: testBytes}
	if len(cs.tiles) != 1 || cs.tiles[0].parts != 1 || cs.main.order != orderLRCP {
		t.Fatal("not one tile-part in LRCP order")
	}
	sot := 2
	for binary.BigEndian.Uint16(b[sot:]) != mSOT {
		sot += 2 + int(binary.BigEndian.Uint16(b[sot+2:]))
	}
	sod := sot + 12
	for binary.BigEndian.Uint16(b[sod:]) != mSOD {
		sod += 2 + int(binary.BigEndian.Uint16(b[sod+2:]))
	}
	main, tileHeader = b[:sot], b[sot+12:sod]
	work := int64(1 << 40)
	tl, err := newTile(cs, 0, cs.main, &work)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{data: cs.tiles[0].data[0]}
	gathered := func(r int) int {
		n := 0
		for _, b := range tl.comps[0].res[r].bands {
			for _, p := range b.precincts {
				for _, cb := range p.blocks {
					for _, sg := range cb.segs {
						n += len(sg.data)
					}
				}
			}
		}
		return n
	}
	for l := range cs.main.layers {
		for r := range tl.comps[0].res {
			if tl.comps[0].res[r].pw*tl.comps[0].res[r].ph != 1 {
				t.Fatal("more than one precinct in a resolution")
			}
			start, had := s.pos, gathered(r)
			if err := tl.packet(s, l, r, 0, 0); err != nil || s.cut {
				t.Fatal(err, s.cut)
			}
			body := gathered(r) - had
			headers = append(headers, s.data[start:s.pos-body])
			bodies = append(bodies, s.data[s.pos-body:s.pos])
		}
	}
	return main, tileHeader, headers, bodies
}

func segmentOf(code uint16, body []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, code)
	b = binary.BigEndian.AppendUint16(b, uint16(2+len(body)))
	return append(b, body...)
}

func tilePart(header, data []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, mSOT)
	b = binary.BigEndian.AppendUint16(b, 10)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(12+len(header)+2+len(data)))
	b = append(b, 0, 1)
	b = append(b, header...)
	b = binary.BigEndian.AppendUint16(b, mSOD)
	return append(b, data...)
}

// TestDecodePacketHeadersApart: a codestream whose packet headers are in
// PPT marker segments (of the tile-part) or PPM ones (of the main header),
// its packets' bodies alone in the tile data, decodes as the codestream
// it was made from. opj_compress does not write them; the test moves a
// fixture's headers there.
func TestDecodePacketHeadersApart(t *testing.T) {
	src := readFixture(t, "lossless-lrcp.j2k")
	main, th, headers, bodies := splitPackets(t, src)
	var hdrs, data []byte
	for i := range headers {
		hdrs = append(hdrs, headers[i]...)
		data = append(data, bodies[i]...)
	}
	eoc := binary.BigEndian.AppendUint16(nil, mEOC)
	// PPT: the headers split over two segments, Zppt 0 and 1.
	half := len(hdrs) / 2
	ppt := append(append(segmentOf(mPPT, append([]byte{0}, hdrs[:half]...)), segmentOf(mPPT, append([]byte{1}, hdrs[half:]...))...), th...)
	withPPT := append(append(append([]byte(nil), main...), tilePart(ppt, data)...), eoc...)
	// PPM: Nppm and the tile-part's headers, split over two segments.
	nppm := binary.BigEndian.AppendUint32(nil, uint32(len(hdrs)))
	all := append(nppm, hdrs...)
	ppm := append(segmentOf(mPPM, append([]byte{0}, all[:half]...)), segmentOf(mPPM, append([]byte{1}, all[half:]...))...)
	withPPM := append(append(append(append([]byte(nil), main...), ppm...), tilePart(th, data)...), eoc...)
	want := readPNM(t, readFixture(t, "gray.pgm"))
	for name, b := range map[string][]byte{"PPT": withPPT, "PPM": withPPM} {
		img, err := Decode(b, 1<<20, testBytes)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := compare(img, want, true); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}
