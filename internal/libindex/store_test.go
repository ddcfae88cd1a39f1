package libindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/researchctx/researchctx/internal/index"
)

// lazySegment encodes a segment of items with units whose every field
// differs from every other unit's, empty fields, long ones and texts of
// every length among them, and decodes it.
func lazySegment(t *testing.T) (items []string, first []int, units []Unit, s *segment, data []byte) {
	t.Helper()
	first = []int{0}
	for i := range 40 {
		items = append(items, fmt.Sprintf("paper:papers/p%02d", i))
		for p := range 1 + i%5 {
			u := Unit{
				Path:  fmt.Sprintf("papers/p%02d/paper.pdf", i),
				Label: fmt.Sprintf("%d", p+1), Page: p + 1 + 300*(i%3),
				Section: strings.Repeat("§", i%4), Title: fmt.Sprintf("Paper %d", i),
				Text: strings.Repeat(fmt.Sprintf("word%d ", i*10+p), (i*7+p)%60),
			}
			if i%7 == 3 {
				u.Mark, u.Comment = "highlight", fmt.Sprintf("comment %d/%d", i, p)
			}
			if i%11 == 5 {
				u.Label, u.Title, u.Text = "", "", ""
			}
			units = append(units, u)
		}
		first = append(first, len(units))
	}
	docs := make([]index.Doc, len(units))
	for d, u := range units {
		docs[d] = index.Doc{Key: unitKey(u), Title: unitTitle(u), Body: unitBody(u)}
	}
	data, err := encodeSegment(items, first, units, index.Build(docs))
	if err != nil {
		t.Fatal(err)
	}
	s, err = decodeSegment(7, data)
	if err != nil {
		t.Fatal(err)
	}
	return items, first, units, s, data
}

// TestLazyUnits: a segment decodes each unit's fields the first time the
// unit is read. Every unit read so, in any order and from many goroutines
// at once, is the unit written, its text the one its checksum covers, and
// each read of a unit returns the same *Unit.
func TestLazyUnits(t *testing.T) {
	items, first, units, s, _ := lazySegment(t)
	if diff := cmp.Diff(items, s.items); diff != "" {
		t.Errorf("items (-written +decoded):\n%s", diff)
	}
	if diff := cmp.Diff(first, s.first); diff != "" {
		t.Errorf("first documents (-written +decoded):\n%s", diff)
	}
	if s.len() != len(units) || s.ix.Len() != len(units) {
		t.Fatalf("%d units, index of %d; want %d", s.len(), s.ix.Len(), len(units))
	}
	got := make([][]*Unit, 8)
	var wg sync.WaitGroup
	for g := range got {
		got[g] = make([]*Unit, len(units))
		wg.Go(func() {
			for i := range units {
				d := (i + 13*g) % len(units) // each goroutine from its own start
				if g%2 == 1 {
					d = len(units) - 1 - d
				}
				got[g][d] = s.unit(d)
			}
		})
	}
	wg.Wait()
	for d, want := range units {
		u := got[0][d]
		if diff := cmp.Diff(want, *u, cmpopts.IgnoreFields(Unit{}, "BodyStart")); diff != "" {
			t.Errorf("unit %d (-written +decoded):\n%s", d, diff)
		}
		for g := range got {
			if got[g][d] != u || s.unit(d) != u {
				t.Fatalf("unit %d: reads returned different units", d)
			}
		}
		if err := s.checkText(d); err != nil {
			t.Errorf("unit %d: %v", d, err)
		}
	}
	if err := s.verify(); err != nil {
		t.Error(err)
	}
}

// TestLazyUnitChanged: bytes of a unit's fields that change after the
// segment was opened (a file rewritten under its mapping) are never
// taken for a unit: the unit reads empty and its text as damaged, so no
// search returns it.
func TestLazyUnitChanged(t *testing.T) {
	_, _, units, s, data := lazySegment(t)
	d := len(units) / 2
	// A length that runs past the head, in place of the unit's path's.
	data[s.heads[d]], data[s.heads[d]+1], data[s.heads[d]+2] = 0xff, 0xff, 0x7f
	if u := s.unit(d); *u != (Unit{}) {
		t.Errorf("a changed unit decoded as %+v", *u)
	}
	if err := s.checkText(d); !errors.Is(err, ErrDamaged) {
		t.Errorf("checkText of a changed unit = %v, want ErrDamaged", err)
	}
	if diff := cmp.Diff(units[d+1], *s.unit(d + 1), cmpopts.IgnoreFields(Unit{}, "BodyStart")); diff != "" {
		t.Errorf("the next unit (-written +decoded):\n%s", diff)
	}
}

// TestSegmentHeadDamaged: a segment whose head's fields run past it, or
// whose texts claim more than the file holds, does not open, whichever
// unit holds the damage; the head's checksum is recomputed, so it is the
// decoding's own checks that refuse it.
func TestSegmentHeadDamaged(t *testing.T) {
	_, _, units, s, data := lazySegment(t)
	for _, d := range []int{0, len(units) / 2, len(units) - 1} {
		b := append([]byte(nil), data...)
		b[s.heads[d]] = 0xff // the path's length, now above what is left
		b[s.heads[d]+1] = 0xff
		b[s.heads[d]+2] = 0x7f
		reseal(b, s.headEnd)
		if _, err := decodeSegment(7, b); err == nil {
			t.Errorf("a segment whose unit %d runs past its head opened", d)
		}
	}
}

// reseal recomputes the CRC-32C of a segment's head, which ends at end.
func reseal(b []byte, end int) {
	binary.LittleEndian.PutUint32(b[end:], crc32.Checksum(b[:end], castagnoli))
}
