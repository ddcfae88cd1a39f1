package pdf

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Annotation kinds whose text is extracted (Line.Annot).
const (
	AnnotFreeText = "FreeText" // a free-text annotation: text typed onto the page
	AnnotWidget   = "Widget"   // a form field: its value, or its appearance
)

// maxAnnots bounds the annotations read per page.
const maxAnnots = 2000

// Annotation flags and field flags (§12.5.3, §12.7.4.3).
const (
	annotHidden   = 1 << 1
	annotNoView   = 1 << 5
	fieldPassword = 1 << 13
)

var daSize = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([0-9.]+)\s+Tf`) })

// annotText returns the text of the page's free-text annotations and form
// fields, in /Annots order, each annotation a paragraph of its own: a text
// or choice field gives its value (/V, inherited from its parent fields),
// a free-text annotation its /Contents, and either without one the text
// drawn by its normal appearance stream. Hidden and no-view annotations,
// password fields, buttons and signature fields give nothing. Lines carry Annot and Start relative to
// the returned text.
//
// Annotation text is page text under the page's limits: shown is what the
// page's content showed, and each annotation's characters (or the glyphs
// its appearance shows) count with it against MaxGlyphs and the
// document's glyph budget, and its text (see textSize) with the page's,
// textBytes, against MaxPageText; the first annotation over one fails the
// page with it.
func (d *doc) annotText(pi *pageInfo, base matrix, w, h float64, shown, textBytes int) ([]Line, string, error) {
	var sb strings.Builder
	var lines []Line
	annots := d.array(pi.dict["Annots"])
	if len(annots) > maxAnnots {
		annots = annots[:maxAnnots]
	}
	// spend counts n more characters of the page, or says which limit
	// they exceed.
	spend := func(n int) error {
		if shown+n > MaxGlyphs {
			return &LimitError{Limit: LimitGlyphs, Max: MaxGlyphs}
		}
		if n > d.glyphBudget {
			d.glyphBudget = 0
			d.spent = &LimitError{Limit: LimitDocGlyphs, Max: MaxDocumentGlyphs}
			return d.spent
		}
		shown += n
		d.glyphBudget -= n
		if textBytes+textSize(sb.String(), lines) > MaxPageText {
			return &LimitError{Limit: LimitPageText, Max: MaxPageText}
		}
		return nil
	}
	for _, a := range annots {
		if err := d.stopped(); err != nil {
			return nil, "", err
		}
		ad := d.dict(a)
		if ad == nil {
			continue
		}
		kind := d.name(ad["Subtype"])
		if kind != AnnotFreeText && kind != AnnotWidget {
			continue
		}
		if f, _ := d.num(ad["F"]); int(f)&(annotHidden|annotNoView) != 0 {
			continue
		}
		rect, ok := d.rect(ad["Rect"])
		if !ok {
			continue
		}
		var value string
		if kind == AnnotWidget {
			ft, v, da, ff := d.fieldEntries(ad)
			if ft == "Btn" || ff&fieldPassword != 0 || ft == "Sig" {
				continue
			}
			value = d.fieldValue(v)
			if value != "" {
				lines = appendValue(lines, &sb, value, rect, base, w, h, da, kind)
				if err := spend(utf8.RuneCountInString(value)); err != nil {
					return nil, "", err
				}
				continue
			}
		} else if value = strings.TrimSpace(d.text(ad["Contents"])); value != "" {
			da := daSize().FindStringSubmatch(d.text(ad["DA"]))
			lines = appendValue(lines, &sb, value, rect, base, w, h, firstMatch(da), kind)
			if err := spend(utf8.RuneCountInString(value)); err != nil {
				return nil, "", err
			}
			continue
		}
		ls, text, n, err := d.appearanceText(ad, rect, base, w, h, MaxGlyphs-shown)
		if err == nil {
			err = spend(n)
		}
		if err != nil {
			return nil, "", err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		off := 0
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		off = sb.Len()
		for _, l := range ls {
			l.Start += off
			l.Annot = kind
			lines = append(lines, l)
		}
		sb.WriteString(text)
		if textBytes+textSize(sb.String(), lines) > MaxPageText {
			return nil, "", &LimitError{Limit: LimitPageText, Max: MaxPageText}
		}
	}
	return lines, sb.String(), nil
}

func firstMatch(m []string) string {
	if len(m) > 1 {
		return m[1]
	}
	return ""
}

// fieldEntries returns a widget's field type, value, default-appearance
// font size and field flags, each inherited from the parent fields when
// the widget does not set it (§12.7.4.1).
func (d *doc) fieldEntries(ad types.Dict) (ft string, v types.Object, da string, ff int) {
	haveFf := false
	for n, depth := ad, 0; n != nil && depth < 32; n, depth = d.dict(n["Parent"]), depth+1 {
		if ft == "" {
			ft = d.name(n["FT"])
		}
		if v == nil {
			v = n["V"]
		}
		if da == "" {
			da = firstMatch(daSize().FindStringSubmatch(d.text(n["DA"])))
		}
		if f, ok := d.num(n["Ff"]); ok && !haveFf {
			ff, haveFf = int(f), true
		}
	}
	return ft, v, da, ff
}

// fieldValue is the text of a field value: a text string, or the
// selected options of a choice field, one to a line.
func (d *doc) fieldValue(v types.Object) string {
	switch o := d.resolve(v).(type) {
	case types.StringLiteral, types.HexLiteral:
		return strings.TrimSpace(d.text(o))
	case types.Array:
		var parts []string
		for _, e := range o {
			if s := strings.TrimSpace(d.text(e)); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// appendValue adds a value's lines, spread down the annotation's box.
func appendValue(lines []Line, sb *strings.Builder, value string, rect [4]float64, base matrix, w, h float64, da, kind string) []Line {
	value = strings.ReplaceAll(strings.ReplaceAll(value, "\r\n", "\n"), "\r", "\n")
	var parts []string
	for _, l := range strings.Split(value, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return lines
	}
	size, _ := strconv.ParseFloat(da, 64)
	box := rectBox(rect, base, w, h)
	if sb.Len() > 0 {
		sb.WriteString("\n\n")
	}
	for i, t := range parts {
		if i > 0 {
			sb.WriteString("\n")
		}
		b := box
		b.H = box.H / float64(len(parts))
		b.Y = box.Y + float64(i)*b.H
		lines = append(lines, Line{Text: t, Box: b, FontSize: size, Start: sb.Len(), Annot: kind})
		sb.WriteString(t)
	}
	return lines
}

// rectBox is a rectangle of default user space as a normalised Box of the
// displayed page.
func rectBox(r [4]float64, base matrix, w, h float64) Box {
	if w <= 0 || h <= 0 {
		return Box{}
	}
	minX, minY, maxX, maxY := w, h, 0.0, 0.0
	for _, p := range [4][2]float64{{r[0], r[1]}, {r[2], r[1]}, {r[0], r[3]}, {r[2], r[3]}} {
		x, y := base.apply(p[0], p[1])
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	clamp := func(v float64) float64 { return max(0, min(1, v)) }
	bx, by := clamp(minX/w), clamp((h-maxY)/h)
	return Box{X: bx, Y: by, W: clamp(maxX/w) - bx, H: clamp((h-minY)/h) - by}
}

// appearanceText runs an annotation's normal appearance stream, placed in
// its rectangle as §12.5.5 describes, and lays out the text it draws: at
// most room glyphs (what the page has left), of which it returns the
// count. The glyphs count against the document's budget in annotText.
func (d *doc) appearanceText(ad types.Dict, rect [4]float64, base matrix, w, h float64, room int) ([]Line, string, int, error) {
	ap := d.dict(ad["AP"])
	if ap == nil {
		return nil, "", 0, nil
	}
	n := d.resolve(ap["N"])
	if states, ok := n.(types.Dict); ok {
		n = d.resolve(states[d.name(ad["AS"])])
	}
	sd, ok := n.(types.StreamDict)
	if !ok {
		return nil, "", 0, nil
	}
	fm := identity
	if m := d.array(sd.Dict["Matrix"]); len(m) == 6 {
		for i := range m {
			fm[i], _ = d.num(m[i])
		}
	}
	bbox, ok := d.rect(sd.Dict["BBox"])
	if !ok {
		return nil, "", 0, nil
	}
	// The form's bounding box, transformed by its matrix, is fitted to
	// the annotation's rectangle.
	minX, minY, maxX, maxY := 1e308, 1e308, -1e308, -1e308
	for _, p := range [4][2]float64{{bbox[0], bbox[1]}, {bbox[2], bbox[1]}, {bbox[0], bbox[3]}, {bbox[2], bbox[3]}} {
		x, y := fm.apply(p[0], p[1])
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	if maxX-minX < 1e-6 || maxY-minY < 1e-6 {
		return nil, "", 0, nil
	}
	sx, sy := (rect[2]-rect[0])/(maxX-minX), (rect[3]-rect[1])/(maxY-minY)
	fit := matrix{sx, 0, 0, sy, rect[0] - minX*sx, rect[1] - minY*sy}
	content, err := d.streamBytes(sd)
	if err != nil || len(content) == 0 {
		return nil, "", 0, err
	}
	in := newInterp(d, fm.mul(fit).mul(base))
	if room < in.maxGlyphs {
		in.maxGlyphs, in.glyphLimit = max(0, room), LimitGlyphs
	}
	in.pageW, in.pageH = w, h
	res := d.dict(sd.Dict["Resources"])
	err = in.run(content, res, 1)
	if err != nil {
		d.glyphBudget -= in.shown
		return nil, "", 0, err
	}
	lines, text := layoutPage(in.glyphs, w, h)
	return lines, text, in.shown, nil
}

// truncateUTF8 cuts s to at most n bytes, on a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
