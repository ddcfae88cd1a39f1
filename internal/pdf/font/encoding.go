package font

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// baseEncoding is a simple font's code → text table (ISO 32000-1 Annex D).
// An empty entry means the code is undefined.
type baseEncoding [256]string

var (
	encOnce     sync.Once
	encStandard baseEncoding
	encWinAnsi  baseEncoding
	encMacRoman baseEncoding
	encPDFDoc   baseEncoding
	encSymbol   baseEncoding
)

func initEncodings() {
	for i, n := range standardNames {
		if n != "" {
			encStandard[i] = glyphText(n)
		}
	}
	for i, n := range macRomanNames {
		if n != "" {
			encMacRoman[i] = glyphText(n)
		}
	}
	// WinAnsiEncoding is Windows code page 1252; the codes 1252 leaves
	// undefined in 0x80–0x9F print as bullets (Annex D, note 6), and 0xA0/0xAD
	// are space and hyphen.
	for i := 32; i < 256; i++ {
		r := charmap.Windows1252.DecodeByte(byte(i))
		if r == utf8.RuneError || (i >= 0x7F && i <= 0x9F && r < 0xA0) {
			r = '•'
		}
		encWinAnsi[i] = string(r)
	}
	encWinAnsi[0xA0] = " "
	encWinAnsi[0xAD] = "-"
	// PDFDocEncoding is Latin-1 with typographic symbols in 0x18–0x1F and
	// 0x80–0x9E (Annex D.3).
	for i := 32; i < 256; i++ {
		encPDFDoc[i] = string(rune(i))
	}
	for i, r := range []rune("˘ˇˆ˙˝˛˚˜") {
		encPDFDoc[0x18+i] = string(r)
	}
	for i, r := range []rune("•†‡…—–ƒ⁄‹›−‰„“”‘’‚™ﬁﬂŁŒŠŸŽıłœšž") {
		encPDFDoc[0x80+i] = string(r)
	}
	encPDFDoc[0x7F] = ""
	encPDFDoc[0x9F] = ""
	encPDFDoc[0xA0] = "€"
	encPDFDoc[0xAD] = ""
	// Symbol: ASCII punctuation and digits as in ASCII, Latin letters
	// replaced by Greek ones; the math symbols above 0xA0 that papers use.
	for i := 32; i < 127; i++ {
		encSymbol[i] = string(rune(i))
	}
	const greekUpper = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"
	const greekLower = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ"
	for i, r := range []rune(greekUpper) {
		encSymbol['A'+i] = string(r)
	}
	for i, r := range []rune(greekLower) {
		encSymbol['a'+i] = string(r)
	}
	encSymbol['"'] = "∀"
	encSymbol['$'] = "∃"
	encSymbol['\''] = "∋"
	encSymbol['*'] = "∗"
	encSymbol['-'] = "−"
	encSymbol['@'] = "≅"
	encSymbol['^'] = "⊥"
	encSymbol['`'] = "\uF8E5"
	encSymbol['~'] = "∼"
	for code, s := range map[int]string{
		0xA1: "ϒ", 0xA2: "′", 0xA3: "≤", 0xA4: "⁄", 0xA5: "∞", 0xA6: "ƒ", 0xA7: "♣", 0xA8: "♦",
		0xA9: "♥", 0xAA: "♠", 0xAB: "↔", 0xAC: "←", 0xAD: "↑", 0xAE: "→", 0xAF: "↓", 0xB0: "°",
		0xB1: "±", 0xB2: "″", 0xB3: "≥", 0xB4: "×", 0xB5: "∝", 0xB6: "∂", 0xB7: "•", 0xB8: "÷",
		0xB9: "≠", 0xBA: "≡", 0xBB: "≈", 0xBC: "…", 0xC0: "ℵ", 0xC1: "ℑ", 0xC2: "ℜ", 0xC3: "℘",
		0xC4: "⊗", 0xC5: "⊕", 0xC6: "∅", 0xC7: "∩", 0xC8: "∪", 0xC9: "⊃", 0xCA: "⊇", 0xCB: "⊄",
		0xCC: "⊂", 0xCD: "⊆", 0xCE: "∈", 0xCF: "∉", 0xD0: "∠", 0xD1: "∇", 0xD5: "∏", 0xD6: "√",
		0xD7: "⋅", 0xD8: "¬", 0xD9: "∧", 0xDA: "∨", 0xDB: "⇔", 0xDC: "⇐", 0xDD: "⇑", 0xDE: "⇒",
		0xDF: "⇓", 0xE0: "◊", 0xE1: "〈", 0xE5: "∑", 0xF1: "〉", 0xF2: "∫",
	} {
		encSymbol[code] = s
	}
}

func encodingByName(name string) *baseEncoding {
	encOnce.Do(initEncodings)
	switch name {
	case "WinAnsiEncoding":
		return &encWinAnsi
	case "MacRomanEncoding", "MacExpertEncoding":
		return &encMacRoman
	case "StandardEncoding":
		return &encStandard
	case "PDFDocEncoding":
		return &encPDFDoc
	case "Symbol":
		return &encSymbol
	}
	return nil
}

// PDFDocText returns the text of a byte of a string in PDFDocEncoding, ""
// for the codes it leaves undefined.
func PDFDocText(c byte) string { return encodingByName("PDFDocEncoding")[c] }

// aglLookup returns the text of a glyph name in the Adobe Glyph List.
func aglLookup(name string) (string, bool) {
	i := sort.SearchStrings(aglNames[:], name)
	if i < len(aglNames) && aglNames[i] == name {
		return aglText[i], true
	}
	return "", false
}

// extraGlyphs names glyphs outside the AGL that TeX and other font tools
// commonly produce.
var extraGlyphs = map[string]string{
	"ff": "ff", "ffi": "ffi", "ffl": "ffl", "fi": "fi", "fl": "fl", "st": "st",
	"dotlessj": "ȷ", "angbracketleft": "⟨", "angbracketright": "⟩",
	"visiblespace": "␣", "compwordmark": "", "nbspace": " ", "sfthyphen": "-",
	"minus": "−", "circlecopyrt": "©", "negationslash": "/", "prime": "′",
	"openbullet": "◦", "suppress": "", "Ifractur": "ℑ", "Rfractur": "ℜ",
	// The wide accents of TeX's math extension font, which have no text
	// of their own (pdftotext passes their code through, "b" for a hat,
	// which it then reads after the letter beneath, "ybd" for ŷ_d).
	"hatwide": "", "hatwider": "", "hatwidest": "", "tildewide": "",
	"tildewider": "", "tildewidest": "",
}

// glyphText maps a glyph name to text following the AGL specification:
// strip a suffix after '.', split ligature components at '_', and read
// uniXXXX[XXXX…] and uXXXX[XX] forms. Ligature glyphs are expanded (ﬁ → fi).
// It returns "" for unknown names.
func glyphText(name string) string {
	if name == "" || name == ".notdef" {
		return ""
	}
	if t, ok := aglLookup(name); ok {
		return expandLigature(t)
	}
	if t, ok := extraGlyphs[name]; ok {
		return t
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphText(name[:i])
	}
	if strings.IndexByte(name, '_') > 0 {
		var sb strings.Builder
		for _, part := range strings.Split(name, "_") {
			sb.WriteString(glyphText(part))
		}
		return sb.String()
	}
	if len(name) >= 7 && strings.HasPrefix(name, "uni") && (len(name)-3)%4 == 0 {
		var sb strings.Builder
		for i := 3; i+4 <= len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 16)
			if err != nil || (v >= 0xD800 && v < 0xE000) {
				return ""
			}
			sb.WriteRune(rune(v))
		}
		return expandLigature(sb.String())
	}
	if len(name) >= 5 && len(name) <= 7 && name[0] == 'u' {
		v, err := strconv.ParseUint(name[1:], 16, 32)
		if err == nil && v <= 0x10FFFF && !(v >= 0xD800 && v < 0xE000) {
			return expandLigature(string(rune(v)))
		}
	}
	return ""
}

// ligatures expands the Latin presentation forms U+FB00–FB06 (NFKC gives
// the same letters, so the expansion is NFKC-safe).
var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}

// Ligature returns the letters of a Latin ligature U+FB00–FB06 ("fi" for
// U+FB01), and "" for any other character.
func Ligature(r rune) string {
	if r < 0xFB00 || r > 0xFB06 {
		return ""
	}
	return ligatures[r-0xFB00]
}

func expandLigature(s string) string {
	for _, r := range s {
		if r >= 0xFB00 && r <= 0xFB06 {
			var sb strings.Builder
			for _, r := range s {
				if r >= 0xFB00 && r <= 0xFB06 {
					sb.WriteString(ligatures[r-0xFB00])
				} else {
					sb.WriteRune(r)
				}
			}
			return sb.String()
		}
	}
	return s
}

// cidCollection holds a lazily decoded CID → rune table.
type cidCollection struct {
	once  sync.Once
	src   string
	multi map[uint16]string
	runes []rune
}

var cidCollections = map[string]*cidCollection{
	"Japan1": {src: cidJapan1, multi: cidJapan1Multi},
	"GB1":    {src: cidGB1, multi: cidGB1Multi},
	"CNS1":   {src: cidCNS1, multi: cidCNS1Multi},
	"Korea1": {src: cidKorea1, multi: cidKorea1Multi},
}

// text returns the Unicode text of a CID, or "" when unmapped.
func (c *cidCollection) text(cid int) string {
	c.once.Do(func() { c.runes = []rune(c.src) })
	if cid < 0 || cid >= len(c.runes) {
		return ""
	}
	if r := c.runes[cid]; r != 0 {
		return string(r)
	}
	return c.multi[uint16(cid)]
}
