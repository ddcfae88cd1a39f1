package font

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	pfont "github.com/pdfcpu/pdfcpu/pkg/font"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/encoding/charmap"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

type fontKind uint8

const (
	fontSimple fontKind = iota
	fontType0
	fontType3
)

// Font is what text extraction needs of a PDF font: how to split a string
// into codes, each code's text, and each code's advance width.
type Font struct {
	kind     fontKind
	name     string
	bold     bool
	vertical bool

	toUnicode *cmap
	enc       *baseEncoding // simple fonts: code → text after /Differences
	unknown   *baseEncoding // simple fonts: text of codes whose /Differences name has none

	encCMap *cmap             // Type 0: embedded encoding CMap (nil: Identity)
	ucs2    bool              // Type 0: predefined Uni*-UCS2/UTF16 CMap: codes are UTF-16
	predef  *predefCMap       // Type 0: another predefined CJK CMap, read by its encoding
	coll    *cidCollection    // Type 0 without ToUnicode: Adobe CID → Unicode
	cidText map[uint32]string // Type 0 without either: CID → text from the embedded program

	// Widths in text space units per unit font size.
	firstChar int
	widths    []float64
	missing   float64
	cidW      map[uint32]float64
	defaultW  float64
	core      string // core-14 font name for metrics, when no /Widths

	fm3       [6]float64       // Type 3 FontMatrix
	procW     map[byte]float64 // Type 3 codes outside /Widths: d0/d1 width, glyph space
	sizeScale float64          // glyph height per unit font size (1 except Type 3)
}

// Code is one decoded character code of a shown string.
type Code struct {
	Text  string
	Width float64 // horizontal advance in text space per unit font size
	Space bool    // single-byte code 32: gets word spacing Tw
}

// Vertical reports whether the font writes top to bottom (a Type 0 font
// with a -V CMap).
func (f *Font) Vertical() bool { return f.vertical }

// Bold reports whether the font's name or descriptor says it is bold.
func (f *Font) Bold() bool { return f.bold }

// SizeScale is a glyph's height per unit font size: 1, except for a Type 3
// font, whose glyph space sets its own em.
func (f *Font) SizeScale() float64 { return f.sizeScale }

// Decode splits s into codes and appends them to dst.
func (f *Font) Decode(s []byte, dst []Code) []Code {
	for i := 0; i < len(s); {
		n := 1
		if p := f.predef; p != nil {
			n = min(max(p.split(s[i:]), 1), len(s)-i)
			c := codeValue(s[i : i+n])
			cid, haveCID := uint32(0), false
			if p.cids != nil {
				cid, haveCID = p.cids.lookupCID(c)
			}
			t, ok := "", false
			if f.toUnicode != nil {
				t, ok = f.toUnicode.lookupText(c)
			}
			if !ok {
				t = p.text(s[i : i+n])
			}
			if t == "" && haveCID && f.coll != nil {
				t = f.coll.text(int(cid))
			}
			w := f.defaultW
			if haveCID {
				if cw, ok := f.cidW[cid]; ok {
					w = cw
				}
			} else if n == 1 {
				w /= 2 // without the tables: a one-byte code is a half-width form
			}
			dst = append(dst, Code{Text: t, Width: w, Space: n == 1 && c == 32})
			i += n
			continue
		}
		if f.kind == fontType0 {
			n = 2
			if f.encCMap != nil {
				if k := f.encCMap.codeLen(s[i:]); k > 0 {
					n = k
				}
			}
			if i+n > len(s) {
				n = len(s) - i
			}
		}
		c := codeValue(s[i : i+n])
		dst = append(dst, Code{Text: f.text(c), Width: f.width(c), Space: n == 1 && c == 32})
		i += n
	}
	return dst
}

// cid returns the CID of a Type 0 code.
func (f *Font) cid(c uint32) uint32 {
	if f.encCMap != nil {
		if cid, ok := f.encCMap.lookupCID(c); ok {
			return cid
		}
		return 0
	}
	return c
}

func (f *Font) text(c uint32) string {
	if f.toUnicode != nil {
		if s, ok := f.toUnicode.lookupText(c); ok {
			return s
		}
	}
	switch f.kind {
	case fontType0:
		if f.ucs2 {
			return utf16Text([]byte{byte(c >> 8), byte(c)})
		}
		if f.coll != nil {
			return f.coll.text(int(f.cid(c)))
		}
		if f.cidText != nil {
			return f.cidText[f.cid(c)]
		}
		return ""
	default:
		if c > 255 {
			return ""
		}
		if f.enc != nil {
			if t := f.enc[c]; t != "" || f.unknown == nil {
				return t
			}
			return f.unknown[c]
		}
		if c >= 32 && c < 127 {
			return string(rune(c))
		}
	}
	return ""
}

func (f *Font) width(c uint32) float64 {
	switch f.kind {
	case fontType0:
		if w, ok := f.cidW[f.cid(c)]; ok {
			return w
		}
		return f.defaultW
	case fontType3:
		i := int(c) - f.firstChar
		if i >= 0 && i < len(f.widths) {
			return f.widths[i] * f.fm3[0]
		}
		if c < 256 {
			return f.procW[byte(c)] * f.fm3[0]
		}
		return 0
	}
	i := int(c) - f.firstChar
	if i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	if f.core != "" && c < 256 {
		return coreWidth(f.core, f.text(c), byte(c))
	}
	return f.missing
}

// coreWidth returns the width of a glyph of a core-14 font by way of its
// WinAnsi code, which pdfcpu's metrics are indexed by.
func coreWidth(coreName, text string, c byte) float64 {
	if w, ok := coreLigatureWidth(coreName, text); ok {
		return w
	}
	wc := int(c)
	if r := []rune(text); len(r) == 1 {
		if b, ok := charmap.Windows1252.EncodeRune(r[0]); ok {
			wc = int(b)
		}
	}
	if coreName == "Symbol" || coreName == "ZapfDingbats" {
		wc = int(c)
	}
	w, err := pfont.CharWidth(coreName, rune(wc))
	if err != nil {
		return 0.5
	}
	return float64(w) / 1000
}

// coreLigatures holds the advance of the fi and fl ligatures, in
// thousandths of an em, of the core-14 text fonts (Adobe's AFM files).
// pdfcpu's metrics are indexed by WinAnsi code, which has no ligatures, so
// without these a ligature of a font without /Widths took a full em and
// pushed the rest of its line to the right, across the next word's gap.
var coreLigatures = map[string]float64{
	"Times-Roman": 556, "Times-Bold": 556, "Times-Italic": 500, "Times-BoldItalic": 556,
	"Helvetica": 500, "Helvetica-Oblique": 500, "Helvetica-Bold": 611, "Helvetica-BoldOblique": 611,
	"Courier": 600, "Courier-Oblique": 600, "Courier-Bold": 600, "Courier-BoldOblique": 600,
}

// coreLigatureWidth returns the width of an fi or fl ligature glyph of a
// core-14 font, whether its text is the ligature character or its letters.
func coreLigatureWidth(coreName, text string) (float64, bool) {
	switch text {
	case "fi", "fl", "\ufb01", "\ufb02":
		w, ok := coreLigatures[coreName]
		return w / 1000, ok
	}
	return 0, false
}

// coreFontName maps a BaseFont name to a core-14 font whose metrics fit it.
func coreFontName(base string) string {
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:]
	}
	b := strings.ToLower(base)
	bold := strings.Contains(b, "bold") || strings.Contains(b, "black") || strings.Contains(b, "heavy")
	italic := strings.Contains(b, "italic") || strings.Contains(b, "oblique")
	var family string
	switch {
	case strings.Contains(b, "courier") || strings.Contains(b, "mono"):
		family = "Courier"
	case strings.Contains(b, "symbol"):
		return "Symbol"
	case strings.Contains(b, "dingbat"):
		return "ZapfDingbats"
	case strings.Contains(b, "helvetica") || strings.Contains(b, "arial") || strings.Contains(b, "sans"):
		family = "Helvetica"
	case strings.Contains(b, "times") || strings.Contains(b, "roman") || strings.Contains(b, "serif"):
		family = "Times"
	default:
		return ""
	}
	switch {
	case family == "Times" && bold && italic:
		return "Times-BoldItalic"
	case family == "Times" && bold:
		return "Times-Bold"
	case family == "Times" && italic:
		return "Times-Italic"
	case family == "Times":
		return "Times-Roman"
	case bold && italic:
		return family + "-BoldOblique"
	case bold:
		return family + "-Bold"
	case italic:
		return family + "-Oblique"
	}
	return family
}

// boldName reports whether a font name says the face is bold.
func boldName(base string) bool {
	if i := strings.IndexByte(base, '+'); i >= 0 {
		base = base[i+1:]
	}
	b := strings.ToLower(base)
	for _, k := range []string{"bold", "black", "heavy", "semibold", "demi", "medi", "-bd", "cmbx", "cmb10", "cmssbx"} {
		if strings.Contains(b, k) {
			return true
		}
	}
	return false
}

// Load builds a font from its dictionary, reading the objects it refers
// to through objs. It does not fail: what is missing or damaged leaves
// codes without text or with a default width.
func Load(objs Objects, fd types.Dict) *Font {
	d := &doc{objs}
	f := &Font{sizeScale: 1}
	sub := d.name(fd["Subtype"])
	f.name = d.name(fd["BaseFont"])
	desc := d.dict(fd["FontDescriptor"])
	var df types.Dict // a Type 0 font's descendant
	switch sub {
	case "Type0":
		f.kind = fontType0
		f.defaultW = 1
		var desc0 types.Dict
		if arr := d.array(fd["DescendantFonts"]); len(arr) > 0 {
			df = d.dict(arr[0])
			desc0 = d.dict(df["FontDescriptor"])
			f.defaultW = 1
			if v, ok := d.num(df["DW"]); ok {
				f.defaultW = v / 1000
			}
			f.cidW = d.cidWidths(d.array(df["W"]))
			if si := d.dict(df["CIDSystemInfo"]); si != nil {
				reg := d.text(si["Registry"])
				ord := d.text(si["Ordering"])
				if reg == "Adobe" {
					f.coll = cidCollections[ord]
				}
			}
			if f.name == "" {
				f.name = d.name(df["BaseFont"])
			}
		}
		desc = desc0
		switch enc := d.resolve(fd["Encoding"]).(type) {
		case types.Name:
			n := string(enc)
			f.vertical = strings.HasSuffix(n, "-V")
			switch {
			case n == "Identity-H" || n == "Identity-V":
			case strings.HasPrefix(n, "Uni") && (strings.Contains(n, "UCS2") || strings.Contains(n, "UTF16")):
				f.ucs2 = true
				f.coll = nil
			default:
				f.predef = predefCMapFor(n)
			}
		case types.StreamDict:
			if data := d.fontData(enc); data != nil {
				f.encCMap = parseCMap(data)
			}
		}
	case "Type3":
		f.kind = fontType3
		f.fm3 = [6]float64{0.001, 0, 0, 0.001, 0, 0}
		if m := d.array(fd["FontMatrix"]); len(m) == 6 {
			for i := range m {
				f.fm3[i], _ = d.num(m[i])
			}
		}
		f.loadSimpleWidths(d, fd, 1)
		f.loadSimpleEncoding(d, fd, desc)
		names := d.differenceNames(fd)
		f.type3ProcWidths(d, fd, &names)
		f.sizeScale = f.type3Scale(d, fd, &names)
	default:
		f.kind = fontSimple
		f.loadSimpleWidths(d, fd, 1.0/1000)
		if len(f.widths) == 0 {
			f.core = coreFontName(f.name)
		}
		f.loadSimpleEncoding(d, fd, desc)
	}
	if tu, ok := d.resolve(fd["ToUnicode"]).(types.StreamDict); ok {
		if data := d.fontData(tu); data != nil {
			cm := parseCMap(data)
			if len(cm.text) > 0 || len(cm.ranges) > 0 {
				f.toUnicode = cm
			}
		}
	}
	if f.kind == fontType0 && f.toUnicode == nil && !f.ucs2 && f.predef == nil && f.coll == nil && desc != nil {
		d.embeddedText(f, df, desc)
	}
	if f.kind == fontSimple && f.toUnicode == nil && desc != nil && sub == "TrueType" {
		d.trueTypeText(f, fd, desc)
	}
	f.bold = boldName(f.name)
	if desc != nil {
		if w, ok := d.num(desc["FontWeight"]); ok && w >= 600 {
			f.bold = true
		}
		if fl, ok := d.num(desc["Flags"]); ok && int(fl)&(1<<18) != 0 {
			f.bold = true
		}
		if f.kind == fontSimple {
			if v, ok := d.num(desc["MissingWidth"]); ok {
				f.missing = v / 1000
			}
		}
	}
	return f
}

// differenceNames returns the glyph name of each code that a simple
// font's /Differences array names.
func (d *doc) differenceNames(fd types.Dict) [256]string {
	var names [256]string
	e := d.dict(fd["Encoding"])
	if e == nil {
		return names
	}
	d.eachDifference(d.array(e["Differences"]), func(c int, name string) { names[c] = name })
	return names
}

// eachDifference calls fn with each code (0 to 255) and glyph name of a
// /Differences array, in its order: a number sets the code of the next
// name, and each name the code after it.
func (d *doc) eachDifference(diffs types.Array, fn func(code int, name string)) {
	codeNr := 0
	for _, o := range diffs {
		switch v := d.resolve(o).(type) {
		case types.Integer:
			codeNr = int(v)
		case types.Float:
			codeNr = int(v)
		case types.Name:
			if codeNr >= 0 && codeNr < 256 {
				fn(codeNr, string(v))
			}
			codeNr++
		}
	}
}

// type3ProcWidths gives a Type 3 font without /Widths (or with too short
// a /Widths array) the advance its glyph procedures declare: the wx of
// their leading d0 or d1 operator, in glyph space.
func (f *Font) type3ProcWidths(d *doc, fd types.Dict, names *[256]string) {
	last := f.firstChar + len(f.widths) - 1
	if len(f.widths) > 0 && f.firstChar <= 0 && last >= 255 {
		return
	}
	procs := d.dict(fd["CharProcs"])
	if procs == nil {
		return
	}
	for c, n := range names {
		if n == "" || (c >= f.firstChar && c <= last) {
			continue
		}
		sd, ok := d.resolve(procs[n]).(types.StreamDict)
		if !ok {
			continue
		}
		data := d.streamPrefix(sd, 256)
		if n, ok := d.num(sd.Dict["Length"]); data == nil && ok && n < 1<<16 {
			data = d.fontData(sd) // shorter than the prefix
		}
		w, ok := type3ProcWidth(data)
		if !ok {
			continue
		}
		if f.procW == nil {
			f.procW = map[byte]float64{}
		}
		f.procW[byte(c)] = w
	}
}

// type3ProcWidth reads wx from the d0 or d1 operator that begins a Type 3
// glyph procedure.
func type3ProcWidth(data []byte) (float64, bool) {
	lx := object.NewLexer(data)
	var ns []float64
	for range 16 {
		t := lx.Next()
		switch t.Kind {
		case object.TokNum:
			ns = append(ns, t.Num)
			continue
		case object.TokOp:
			op := string(t.Val)
			if (op == "d0" && len(ns) >= 2) || (op == "d1" && len(ns) >= 6) {
				if k := len(ns) - 2; op == "d0" {
					return ns[k], true
				}
				return ns[len(ns)-6], true
			}
		}
		return 0, false
	}
	return 0, false
}

// type3Scale estimates the em of a Type 3 font, in text space per unit
// font size, which its glyph space does not define: the height of its
// FontBBox when that is plausible, else pdftotext's guess from the
// advance of a glyph (m is 0.6 em wide, another letter or any glyph 0.5
// em), else the 1000-unit em of other fonts.
func (f *Font) type3Scale(d *doc, fd types.Dict, names *[256]string) float64 {
	if bb := d.array(fd["FontBBox"]); len(bb) == 4 {
		y0, _ := d.num(bb[1])
		y1, _ := d.num(bb[3])
		if h := abs(y1-y0) * abs(f.fm3[3]); h > 0.2 && h < 5 {
			return h
		}
	}
	mW, letterW, anyW := 0.0, 0.0, 0.0
	for c, n := range names {
		w := f.width(uint32(c))
		if w <= 0 {
			continue
		}
		switch {
		case n == "m" && mW == 0:
			mW = w
		case len(n) == 1 && (n[0] >= 'A' && n[0] <= 'Z' || n[0] >= 'a' && n[0] <= 'z') && letterW == 0:
			letterW = w
		case n != "" && anyW == 0:
			anyW = w
		}
	}
	ratio := 1.0
	if f.fm3[0] != 0 {
		ratio = abs(f.fm3[3] / f.fm3[0])
	}
	for _, e := range []float64{mW / 0.6, letterW / 0.5, anyW / 0.5} {
		if s := e * ratio; s > 0.05 && s < 20 {
			return s
		}
	}
	if s := abs(f.fm3[3]) * 1000; s > 0 {
		return s
	}
	return 1
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func (f *Font) loadSimpleWidths(d *doc, fd types.Dict, scale float64) {
	fc, _ := d.num(fd["FirstChar"])
	f.firstChar = int(fc)
	ws := d.array(fd["Widths"])
	if len(ws) > 65536 {
		ws = ws[:65536]
	}
	for _, w := range ws {
		v, _ := d.num(w)
		f.widths = append(f.widths, v*scale)
	}
}

// loadSimpleEncoding sets f.enc from /Encoding (a name, or a dictionary
// with /BaseEncoding and /Differences), falling back to the encoding built
// into an embedded Type 1 program, then to StandardEncoding.
func (f *Font) loadSimpleEncoding(d *doc, fd, desc types.Dict) {
	var base *baseEncoding
	var diffs types.Array
	symbolic := false
	if desc != nil {
		if fl, ok := d.num(desc["Flags"]); ok && int(fl)&4 != 0 {
			symbolic = true
		}
	}
	switch e := d.resolve(fd["Encoding"]).(type) {
	case types.Name:
		base = encodingByName(string(e))
	case types.Dict:
		base = encodingByName(d.name(e["BaseEncoding"]))
		diffs = d.array(e["Differences"])
	}
	var builtinUnknown *baseEncoding
	if desc != nil && f.kind == fontSimple && (base == nil || symbolic) {
		// A symbolic font's own encoding wins over a named base encoding,
		// which such fonts carry only nominally.
		if b, unknown := d.builtinEncoding(desc); b != nil {
			base, builtinUnknown = b, unknown
		}
	}
	if base == nil {
		core := coreFontName(f.name)
		switch {
		case core == "Symbol":
			base = encodingByName("Symbol")
		case f.kind == fontType3 || (symbolic && core == ""):
			base = nil
		default:
			base = encodingByName("StandardEncoding")
		}
	}
	var enc baseEncoding
	if base != nil {
		enc = *base
	} else {
		for c := 32; c < 127; c++ {
			enc[c] = string(rune(c))
		}
	}
	var names [256]string
	d.eachDifference(diffs, func(c int, name string) {
		enc[c] = glyphText(name)
		names[c] = name
	})
	f.enc = &enc
	f.unknown = d.unknownNames(diffs, &names, &enc)
	if builtinUnknown != nil {
		// The program's own names without text pass their code through,
		// as pdftotext reads them, where /Differences names nothing.
		if f.unknown == nil {
			f.unknown = new(baseEncoding)
		}
		for c, t := range builtinUnknown {
			if names[c] == "" && enc[c] == "" && f.unknown[c] == "" {
				f.unknown[c] = t
			}
		}
	}
}

// unknownNames gives the text pdftotext gives the codes whose /Differences
// name has none (not in the glyph list nor of the uniXXXX, uXXXX, variant
// or ligature forms): in a font whose /Differences array is numeric (each
// number at most 5, each name a number after up to two letters, "g12",
// "c65", "ab7", or two hex digits after up to one letter, "G4A", when a
// name of the font reads as hex), the number as a character; otherwise
// the code itself (code 65 reads "A"). Codes and numbers that are control
// characters stay empty. It returns nil when no name is unknown.
func (d *doc) unknownNames(diffs types.Array, names *[256]string, enc *baseEncoding) *baseEncoding {
	var out *baseEncoding
	hex := false
	for c, n := range names {
		if n == "" || enc[c] != "" || knownGlyph(n) {
			continue
		}
		if out == nil {
			out = new(baseEncoding)
		}
		hex = hex || hexGlyphName(n)
	}
	if out == nil {
		return nil
	}
	numeric := true
	for _, o := range diffs {
		switch v := d.resolve(o).(type) {
		case types.Integer:
			numeric = numeric && v <= 5
		case types.Name:
			_, ok := numericGlyphName(string(v), hex)
			numeric = numeric && ok
		default:
			numeric = false
		}
	}
	for c, n := range names {
		if n == "" || enc[c] != "" || knownGlyph(n) {
			continue
		}
		r := rune(c)
		if numeric {
			r, _ = numericGlyphName(n, hex)
		}
		if printable(r) {
			out[c] = string(r)
		}
	}
	return out
}

// knownGlyph reports whether a glyph name maps to text or is one this
// package knows to have none (.notdef, TeX's compwordmark).
func knownGlyph(name string) bool {
	if name == ".notdef" || glyphText(name) != "" {
		return true
	}
	_, ok := extraGlyphs[name]
	return ok
}

// hexGlyphName reports whether an unknown glyph name reads as hex: a
// letter and two hex digits or two hex digits, one of them (the second
// of two) a letter a–f ("Ga1", "G4A", "4a"; not "G41", "a0").
func hexGlyphName(n string) bool {
	isHexLetter := func(b byte) bool { return (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F') }
	switch len(n) {
	case 3:
		return isAlpha(n[0]) && isHexDigit(n[1]) && isHexDigit(n[2]) && (isHexLetter(n[1]) || isHexLetter(n[2]))
	case 2:
		return isHexDigit(n[0]) && isHexDigit(n[1]) && isHexLetter(n[1])
	}
	return false
}

// numericGlyphName reads a glyph name as a number, as pdftotext does in a
// font whose names are all numbers: in hex, two hex digits after at most
// one letter ("G4A", "41"); in decimal, digits after up to two letters
// ("g12", "ab7", "65"). Characters other than letters and digits may
// follow ("g12-").
func numericGlyphName(n string, hex bool) (rune, bool) {
	if hex {
		k := 0
		for k < len(n) && (isAlpha(n[k]) || isDigit(n[k])) {
			k++
		}
		switch {
		case k == 3 && isAlpha(n[0]):
			n = n[1:]
		case k != 2:
			return 0, false
		}
	} else {
		for i := 0; i < 2 && len(n) > 0 && isAlpha(n[0]); i++ {
			n = n[1:]
		}
	}
	k, v := 0, 0
	for k < len(n) && (isDigit(n[k]) || (hex && isHexDigit(n[k]))) && v <= unicode.MaxRune {
		d := int(n[k] - '0')
		switch {
		case n[k] >= 'a':
			d = int(n[k]-'a') + 10
		case n[k] >= 'A':
			d = int(n[k]-'A') + 10
		}
		if hex {
			v = v*16 + d
		} else {
			v = v*10 + d
		}
		k++
	}
	if k == 0 {
		return 0, false
	}
	for _, b := range []byte(n[k:]) {
		if isAlpha(b) || isDigit(b) {
			return 0, false
		}
	}
	return rune(v), true
}

// printable reports whether a character passed through for an unknown
// glyph is text: not a control character, surrogate or beyond Unicode.
func printable(r rune) bool {
	return r >= 32 && r != 127 && (r < 0x80 || r >= 0xA0) && utf8.ValidRune(r)
}

func isAlpha(b byte) bool    { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }
func isDigit(b byte) bool    { return b >= '0' && b <= '9' }
func isHexDigit(b byte) bool { return isDigit(b) || ((b|0x20) >= 'a' && (b|0x20) <= 'f') }

var t1Enc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put`) })

// builtinEncoding reads the /Encoding array of an embedded Type 1 font
// program's clear-text part ("dup 65 /A put"), which fonts without an
// /Encoding entry rely on. For a Type 1 program it also returns the codes
// whose glyph name has no text (a dingbat font's "a12"), as printable
// characters passed through, which is what pdftotext reads for them.
func (d *doc) builtinEncoding(desc types.Dict) (enc, unknown *baseEncoding) {
	if sd, ok := d.resolve(desc["FontFile3"]).(types.StreamDict); ok {
		if d.name(sd.Dict["Subtype"]) == "Type1C" {
			if data := d.fontData(sd); data != nil {
				return cffBuiltinEncoding(data), nil
			}
		}
		return nil, nil
	}
	sd, ok := d.resolve(desc["FontFile"]).(types.StreamDict)
	if !ok {
		return nil, nil
	}
	// Only the clear-text part, its first Length1 bytes, is read: the
	// rest, the encrypted glyph programs, is most of the stream.
	var data []byte
	n, ok := d.num(sd.Dict["Length1"])
	if ok && n >= 1 && n < object.MaxStreamBytes {
		data = d.streamPrefix(sd, int64(n))
	}
	if data == nil {
		data = d.fontData(sd)
		if data == nil {
			return nil, nil
		}
		if ok && int(n) > 0 && int(n) < len(data) {
			data = data[:int(n)]
		}
	}
	if i := bytes.Index(data, []byte("eexec")); i > 0 {
		data = data[:i]
	}
	if bytes.Contains(data, []byte("/Encoding StandardEncoding")) {
		return encodingByName("StandardEncoding"), nil
	}
	ms := t1Enc().FindAllSubmatch(data, 512)
	if len(ms) == 0 {
		return nil, nil
	}
	enc = new(baseEncoding)
	for _, m := range ms {
		c, err := strconv.Atoi(string(m[1]))
		if err != nil || c < 0 || c > 255 {
			continue
		}
		name := string(m[2])
		enc[c] = glyphText(name)
		if enc[c] == "" && !knownGlyph(name) && printable(rune(c)) {
			if unknown == nil {
				unknown = new(baseEncoding)
			}
			unknown[c] = string(rune(c))
		}
	}
	return enc, unknown
}

// trueTypeText fills the codes of a simple TrueType font without a
// ToUnicode CMap that its encoding leaves without text (codes below 32 of
// a symbolic font, glyph names outside the Adobe Glyph List) from its
// embedded program: the code's glyph, found by name in the post table or
// through the (3,0) or (1,0) cmap, gives its text by the Unicode cmap or
// its post name. An unknown glyph name whose glyph says nothing reads as
// unknownNames has it.
func (d *doc) trueTypeText(f *Font, fd, desc types.Dict) {
	if f.enc == nil {
		return
	}
	lo, hi := 0, 255
	if len(f.widths) > 0 {
		lo, hi = max(f.firstChar, 0), min(f.firstChar+len(f.widths)-1, 255)
	}
	need := false
	for c := lo; c <= hi && !need; c++ {
		need = f.enc[c] == ""
	}
	if !need {
		return
	}
	names := d.differenceNames(fd)
	var gidText map[uint32]string
	var byCode [256]uint16
	var postNames map[string]uint16
	if sd, ok := d.resolve(desc["FontFile2"]).(types.StreamDict); ok {
		if data := d.fontData(sd); data != nil {
			gidText = sfntGlyphText(data)
			byCode, _ = sfntCodeGlyphs(sfntTable(data, "cmap"))
			postNames = sfntPostNames(sfntTable(data, "post"))
		}
	}
	for c := lo; c <= hi; c++ {
		if f.enc[c] != "" {
			continue
		}
		n := names[c]
		g, ok := uint16(0), false
		if n != "" {
			g, ok = postNames[n]
		} else {
			g, ok = byCode[c], byCode[c] != 0
		}
		if t := gidText[uint32(g)]; ok && t != "" {
			f.enc[c] = t
		}
	}
}

// cidWidths reads a CIDFont /W array: c [w1 w2 ...] or cfirst clast w.
func (d *doc) cidWidths(w types.Array) map[uint32]float64 {
	m := make(map[uint32]float64)
	for i := 0; i < len(w) && len(m) < maxCMapEntries; {
		c0, ok := d.num(w[i])
		if !ok || i+1 >= len(w) {
			break
		}
		if arr, ok := d.resolve(w[i+1]).(types.Array); ok {
			for j, o := range arr {
				v, _ := d.num(o)
				m[uint32(c0)+uint32(j)] = v / 1000
			}
			i += 2
			continue
		}
		if i+2 >= len(w) {
			break
		}
		c1, _ := d.num(w[i+1])
		v, _ := d.num(w[i+2])
		for c := uint32(c0); c <= uint32(c1) && len(m) < maxCMapEntries; c++ {
			m[c] = v / 1000
		}
		i += 3
	}
	return m
}

// embeddedText gives a Type 0 font that has neither a ToUnicode CMap nor
// a known character collection the text of its embedded program: a
// TrueType or OpenType program's cmap table (glyph → character, through
// /CIDToGIDMap) or post names, a name-keyed CFF program's glyph names, or
// the Adobe collection a CID-keyed CFF program declares.
func (d *doc) embeddedText(f *Font, df, desc types.Dict) {
	var gids []byte // CIDToGIDMap stream: two bytes per CID; nil: identity
	if sd, ok := d.resolve(df["CIDToGIDMap"]).(types.StreamDict); ok {
		gids = d.fontData(sd)
	}
	var byGlyph map[uint32]string
	if sd, ok := d.resolve(desc["FontFile2"]).(types.StreamDict); ok {
		if data := d.fontData(sd); data != nil {
			byGlyph = sfntGlyphText(data)
		}
	} else if sd, ok := d.resolve(desc["FontFile3"]).(types.StreamDict); ok {
		data := d.fontData(sd)
		if data == nil {
			return
		}
		if d.name(sd.Dict["Subtype"]) == "OpenType" {
			byGlyph = sfntGlyphText(data)
		} else {
			var ord string
			byGlyph, ord = cffGlyphText(data)
			if byGlyph == nil {
				f.coll = cidCollections[ord]
				return
			}
		}
	}
	if len(byGlyph) == 0 {
		return
	}
	if gids == nil {
		f.cidText = byGlyph
		return
	}
	f.cidText = make(map[uint32]string)
	for cid := 0; 2*cid+1 < len(gids) && cid < maxCMapEntries; cid++ {
		if t, ok := byGlyph[uint32(gids[2*cid])<<8|uint32(gids[2*cid+1])]; ok {
			f.cidText[uint32(cid)] = t
		}
	}
}
