package font

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode/utf32"
)

// predefCMap is a predefined CJK CMap (§9.7.5.2) other than the Unicode
// UCS2/UTF16 ones, read through the character encoding its codes are in:
// the RKSJ CMaps take Shift-JIS codes, EUC-H and the other EUC ones EUC
// codes, GBK-EUC GBK, B5 Big Five, KSC-EUC and UHC the Korean EUC (UHC)
// codes, the ISO-2022 ones (H, GB-H, KSC-H) row-cell codes, the UTF8 and
// UTF32 ones Unicode. Each code is split off by the encoding's own byte
// structure and decoded to text with golang.org/x/text's decoders, so no
// code → CID table is needed for text. Widths, which a CIDFont keys by
// CID, come from the code → CID tables generated from Adobe's CMaps
// (zz_cmap.go), which also give text through the character collection
// for the CMaps without a decoder here (CNS 11643, JIS X 0212 row-cell).
type predefCMap struct {
	codeLen func(s []byte) int
	dec     *encoding.Decoder
	offset  byte  // added to both bytes of an ISO-2022 code to make it EUC
	cids    *cmap // code → CID from the generated tables, when they have the CMap
}

// split returns the length of the code at the start of s: by the CMap's
// own codespace ranges when the tables have it, else by its encoding.
func (p *predefCMap) split(s []byte) int {
	if p.cids != nil {
		if n := p.cids.codeLen(s); n > 0 {
			return n
		}
	}
	if p.codeLen != nil {
		return p.codeLen(s)
	}
	return 1
}

// predefCMapFor returns the predefined CMap named name, or nil when it is
// not one this package reads.
func predefCMapFor(name string) *predefCMap {
	p := predefDecoder(name)
	if cm := predefCIDMap(name); cm != nil {
		if p == nil {
			p = &predefCMap{}
		}
		p.cids = cm
	}
	return p
}

// predefDecoder returns how the codes of the predefined CMap name are
// split and decoded to text, or nil.
func predefDecoder(name string) *predefCMap {
	base := strings.TrimSuffix(strings.TrimSuffix(name, "-H"), "-V")
	switch {
	case strings.HasPrefix(name, "Uni") && strings.Contains(name, "UTF8"):
		return &predefCMap{codeLen: utf8Len}
	case strings.HasPrefix(name, "Uni") && strings.Contains(name, "UTF32"):
		return &predefCMap{codeLen: func(s []byte) int { return min(4, len(s)) }, dec: utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM).NewDecoder()}
	case strings.Contains(name, "RKSJ"):
		return &predefCMap{codeLen: sjisLen, dec: japanese.ShiftJIS.NewDecoder()}
	case strings.HasPrefix(base, "GBK2K"):
		return &predefCMap{codeLen: gb18030Len, dec: simplifiedchinese.GB18030.NewDecoder()}
	case strings.Contains(base, "EUC") && strings.HasPrefix(base, "GB"):
		return &predefCMap{codeLen: eucLen, dec: simplifiedchinese.GBK.NewDecoder()}
	case strings.HasPrefix(base, "KSC") && strings.Contains(base, "EUC"), strings.HasPrefix(base, "KSCms-UHC"):
		return &predefCMap{codeLen: eucLen, dec: korean.EUCKR.NewDecoder()}
	case strings.Contains(base, "B5"):
		return &predefCMap{codeLen: eucLen, dec: traditionalchinese.Big5.NewDecoder()}
	case base == "EUC" || base == "78-EUC" || base == "Hojo-EUC":
		return &predefCMap{codeLen: eucJPLen, dec: japanese.EUCJP.NewDecoder()}
	case base == "H" || base == "V" || base == "78" || base == "Add" || base == "Ext" || base == "NWP":
		return &predefCMap{codeLen: twoBytes, dec: japanese.EUCJP.NewDecoder(), offset: 0x80}
	case base == "GB":
		return &predefCMap{codeLen: twoBytes, dec: simplifiedchinese.GBK.NewDecoder(), offset: 0x80}
	case base == "KSC":
		return &predefCMap{codeLen: twoBytes, dec: korean.EUCKR.NewDecoder(), offset: 0x80}
	}
	return nil
}

// text decodes one code by the CMap's encoding ("" when it has none).
func (p *predefCMap) text(code []byte) string {
	if p.codeLen == nil {
		return ""
	}
	if p.dec == nil { // UTF-8
		if r, n := utf8.DecodeRune(code); r != utf8.RuneError && n == len(code) {
			return string(r)
		}
		return ""
	}
	if p.offset != 0 {
		if len(code) != 2 || code[0] < 0x21 || code[0] > 0x7E || code[1] < 0x21 || code[1] > 0x7E {
			return ""
		}
		code = []byte{code[0] + p.offset, code[1] + p.offset}
	}
	out, err := p.dec.Bytes(code)
	if err != nil || !utf8.Valid(out) || bytes.ContainsRune(out, utf8.RuneError) {
		return ""
	}
	return string(out)
}

func twoBytes(s []byte) int { return min(2, len(s)) }

// sjisLen: Shift-JIS lead bytes 81–9F and E0–FC start two-byte codes.
func sjisLen(s []byte) int {
	if c := s[0]; (c >= 0x81 && c <= 0x9F) || (c >= 0xE0 && c <= 0xFC) {
		return min(2, len(s))
	}
	return 1
}

// eucLen: bytes 81–FE start two-byte codes (GBK, Big Five, UHC, EUC).
func eucLen(s []byte) int {
	if s[0] >= 0x81 && s[0] <= 0xFE {
		return min(2, len(s))
	}
	return 1
}

// eucJPLen: 8E (half-width katakana) and A1–FE start two-byte codes, 8F
// three-byte ones (JIS X 0212).
func eucJPLen(s []byte) int {
	switch c := s[0]; {
	case c == 0x8F:
		return min(3, len(s))
	case c == 0x8E || (c >= 0xA1 && c <= 0xFE):
		return min(2, len(s))
	}
	return 1
}

// gb18030Len: a two-byte GBK code, or four bytes when the second byte is
// a digit.
func gb18030Len(s []byte) int {
	if s[0] < 0x81 || s[0] > 0xFE {
		return 1
	}
	if len(s) >= 4 && s[1] >= 0x30 && s[1] <= 0x39 {
		return 4
	}
	return min(2, len(s))
}

func utf8Len(s []byte) int {
	switch c := s[0]; {
	case c >= 0xF0:
		return min(4, len(s))
	case c >= 0xE0:
		return min(3, len(s))
	case c >= 0xC0:
		return min(2, len(s))
	}
	return 1
}

var (
	predefOnce sync.Once
	predefData []byte // predefCIDData decompressed
	predefMu   sync.Mutex
	predefMaps = map[string]*cmap{}
)

// predefCIDMap returns the code → CID map of a predefined CMap from the
// generated tables (zz_cmap.go), with the CMap it uses merged in, or nil.
func predefCIDMap(name string) *cmap {
	predefOnce.Do(func() {
		b, err := io.ReadAll(flate.NewReader(strings.NewReader(predefCIDData)))
		if err == nil {
			predefData = b
		}
	})
	predefMu.Lock()
	defer predefMu.Unlock()
	return loadPredef(name, 0)
}

func loadPredef(name string, depth int) *cmap {
	if cm, ok := predefMaps[name]; ok {
		return cm
	}
	at, ok := predefCIDIndex[name]
	if !ok || depth > 4 || at[1] > len(predefData) {
		return nil
	}
	b := predefData[at[0]:at[1]]
	next := func() uint32 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return uint32(v)
	}
	cm := &cmap{}
	for n := next(); n > 0; n-- {
		cm.spaces = append(cm.spaces, codespace{n: int(next()), lo: next(), hi: next()})
	}
	use := string(b[:min(int(next()), len(b))])
	b = b[len(use):]
	var own []cmapRange
	for n := next(); n > 0 && b != nil; n-- {
		lo := next()
		hi := lo + next()
		cid := next()
		if lo == hi {
			cm.setCID(lo, cid)
		} else {
			own = append(own, cmapRange{lo: lo, hi: hi, cid: cid})
		}
	}
	if use != "" {
		if parent := loadPredef(use, depth+1); parent != nil {
			if len(cm.spaces) == 0 {
				cm.spaces = parent.spaces
			}
			cm.ranges = append(cm.ranges, parent.ranges...)
			for c, cid := range parent.cids {
				if _, mine := cm.cids[c]; !mine {
					cm.setCID(c, cid)
				}
			}
		}
	}
	// Own ranges sort after the parent's equal starts, so that they win.
	cm.ranges = append(cm.ranges, own...)
	sort.SliceStable(cm.ranges, func(i, j int) bool { return cm.ranges[i].lo < cm.ranges[j].lo })
	predefMaps[name] = cm
	return cm
}
