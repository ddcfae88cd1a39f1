package object

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The lazy reader serves a file's objects as the extractor asks for
// them, instead of pdfcpu parsing every object of the file up front. It
// reads the cross-reference sections AuditXRef has read (classic tables,
// cross-reference streams, hybrid files, /Prev chains: the first listing
// of a number wins), parses an object when it is first dereferenced and
// keeps it, and decodes an object stream once, when one of its objects
// is first asked for. An object never referenced costs nothing.
//
// It gives the values pdfcpu would: the same types, strings kept as
// written (types.StringLiteral, types.HexLiteral as pdfcpu normalises
// it), integers and reals told apart as pdfcpu does, a stream's raw
// bytes taken by its /Length and its filter pipeline built as pdfcpu
// builds it. It reads only the plain grammar that writers produce, in
// which the two agree; anything else (a comment inside an object, an
// offset that does not hold the object listed, a stream without a
// /Length, a number pdfcpu would read leniently, nesting near the limit,
// a reference back into an object being read) ends it: unsure is set,
// and the document is read again through pdfcpu, which decides.

// errUnsure is why the lazy reader gave up on a file.
var errUnsure = errors.New("pdf: outside what the lazy reader reads")

// maxObjStmBytes bounds what the lazy reader decodes from object
// streams, which it keeps: writers make them of a few hundred kB; a file
// that needs more is left to pdfcpu.
const maxObjStmBytes = 64 << 20

// maxLazyDepth bounds objects read while reading another (see object).
const maxLazyDepth = 8

// maxLazyNesting is the nesting the lazy reader parses; deeper is left
// to pdfcpu, whose limit is MaxObjectNesting.
const maxLazyNesting = MaxObjectNesting - 4

// Lazy reads a file held in memory object by object.
type Lazy struct {
	ctx     context.Context
	data    []byte
	entries []auditEntry // by object number, one each
	objs    map[int]types.Object
	busy    map[int]bool // objects being read: a reference back is a cycle
	stms    map[int]*objStm
	root    *types.IndirectRef
	infoRef *types.IndirectRef
	rootD   types.Dict
	rootOK  bool
	// decoded is what object streams have decoded so far, held to
	// maxObjStmBytes.
	decoded int64
	reads   int
	// Unsure is set when the file turns out to be outside what the lazy
	// reader reads: the caller then reads it with pdfcpu instead.
	Unsure error
}

// objStm is a decoded object stream: its data and where each of its
// objects starts.
type objStm struct {
	data []byte
	offs []int
}

// NewLazy returns the lazy reader of data from its audited cross-
// reference, or nil when the file is not one it reads: not starting
// with its header, encrypted, or whose newest trailer names no catalog.
func NewLazy(ctx context.Context, data []byte, a *XRefAudit) *Lazy {
	if !bytes.HasPrefix(data, []byte("%PDF-")) || len(a.entries) == 0 || len(a.trailers) == 0 {
		return nil
	}
	l := &Lazy{ctx: ctx, data: data, entries: a.entries, objs: map[int]types.Object{}, busy: map[int]bool{}, stms: map[int]*objStm{}}
	// pdfcpu takes /Root from the newest trailer, which must have one,
	// and /Info from the newest that has a reference.
	if l.root = a.trailers[0].IndirectRefEntry("Root"); l.root == nil {
		return nil
	}
	for _, t := range a.trailers {
		if _, ok := t.Find("Encrypt"); ok {
			return nil // decryption is pdfcpu's
		}
		if l.infoRef == nil {
			l.infoRef = t.IndirectRefEntry("Info")
		}
	}
	return l
}

func (l *Lazy) fail(format string, args ...any) {
	if l.Unsure == nil {
		l.Unsure = fmt.Errorf("%w: %s", errUnsure, fmt.Sprintf(format, args...))
	}
}

func (l *Lazy) entry(nr int) (auditEntry, bool) {
	i, ok := slices.BinarySearchFunc(l.entries, nr, func(e auditEntry, nr int) int { return e.nr - nr })
	if !ok {
		return auditEntry{}, false
	}
	return l.entries[i], true
}

// Deref returns the object ref names, read on first use, or nil.
func (l *Lazy) Deref(ref types.IndirectRef) types.Object {
	return l.object(ref.ObjectNumber.Value(), false)
}

// Catalog returns the document catalog, nil when there is none.
func (l *Lazy) Catalog() types.Dict {
	if !l.rootOK {
		l.rootOK = true
		l.rootD, _ = l.Deref(*l.root).(types.Dict)
	}
	return l.rootD
}

// Info returns the newest trailer's /Info reference, or nil.
func (l *Lazy) Info() types.Object {
	if l.infoRef == nil {
		return nil
	}
	return *l.infoRef
}

// object returns object nr, read on first use; stm allows an object
// stream itself (read for its objects, never handed out).
func (l *Lazy) object(nr int, stm bool) types.Object {
	if l.Unsure != nil {
		return nil
	}
	if o, ok := l.objs[nr]; ok && !stm {
		return o
	}
	e, ok := l.entry(nr)
	if !ok || e.typ == 0 {
		return nil // not listed, or free: the null object, as in pdfcpu
	}
	if l.busy[nr] {
		l.fail("object %d refers back to itself while read", nr)
		return nil
	}
	// An object is read inside another only for a stream's indirect
	// /Length and an object stream: a few levels, not a chain.
	if len(l.busy) >= maxLazyDepth {
		l.fail("object %d read %d objects deep", nr, len(l.busy))
		return nil
	}
	if l.reads++; l.reads%256 == 0 && l.ctx.Err() != nil {
		l.fail("stopped")
		return nil
	}
	l.busy[nr] = true
	defer delete(l.busy, nr)
	var o types.Object
	switch e.typ {
	case 1:
		if e.f2 == 0 {
			return nil // pdfcpu ignores an object in use without an offset
		}
		o = l.plain(nr, e.f2)
		if sd, ok := o.(types.StreamDict); ok && !stm {
			if t := sd.Dict.Type(); t != nil && (*t == "ObjStm" || *t == "XRef") {
				l.fail("object %d is an object or cross-reference stream", nr)
				return nil
			}
		}
	case 2:
		o = l.compressed(nr, int(e.f2), int(e.f3))
	}
	if l.Unsure != nil {
		return nil
	}
	if !stm {
		l.objs[nr] = o
	}
	return o
}

// plain parses the object nr at offset off: "nr gen obj", a value, then
// "endobj", or a dictionary, "stream", its data of /Length bytes.
func (l *Lazy) plain(nr int, off int64) types.Object {
	b := l.data
	if off < 9 || off >= int64(len(b)) {
		l.fail("object %d at offset %d", nr, off)
		return nil
	}
	i := int(off)
	n, i := digits(b, i)
	if n != nr || i >= len(b) || !isSpace(b[i]) {
		l.fail("object %d: no header at its offset", nr)
		return nil
	}
	i = skipSpaces(b, i)
	start := i
	_, i = digits(b, i)
	if i == start || i >= len(b) || !isSpace(b[i]) {
		l.fail("object %d: no generation", nr)
		return nil
	}
	i = skipSpaces(b, i)
	if !bytes.HasPrefix(b[i:], []byte("obj")) {
		l.fail("object %d: no obj keyword", nr)
		return nil
	}
	p := parser{b: b, pos: i + 3, end: len(b), ok: true}
	p.skip()
	if p.ok && p.keyword("endobj") {
		return nil // an empty object, the null object for pdfcpu
	}
	v := p.value()
	p.skip()
	switch {
	case !p.ok:
		l.fail("object %d: %s", nr, p.why)
		return nil
	case p.keyword("endobj"):
		return v
	case p.keyword("stream"):
	default:
		l.fail("object %d: no endobj", nr)
		return nil
	}
	d, ok := v.(types.Dict)
	if !ok {
		l.fail("object %d: a stream without a dictionary", nr)
		return nil
	}
	// The data starts after the keyword, spaces and one end of line.
	at := p.pos + len("stream")
	for at < len(b) && b[at] == ' ' {
		at++
	}
	switch {
	case at < len(b) && b[at] == '\n':
		at++
	case at+1 < len(b) && b[at] == '\r' && b[at+1] == '\n':
		at += 2
	default:
		l.fail("object %d: no line end after stream", nr)
		return nil
	}
	length, lengthNr := d.Length()
	if length == nil && lengthNr != nil {
		if v, ok := l.object(*lengthNr, false).(types.Integer); ok {
			n := int64(v)
			length = &n
		}
	}
	if length == nil || *length <= 0 || *length > int64(len(b)-at) {
		l.fail("object %d: stream length", nr)
		return nil
	}
	pipe, ok := filterPipeline(d)
	if !ok {
		l.fail("object %d: filters", nr)
		return nil
	}
	sd := types.NewStreamDict(d, int64(at), length, lengthNr, pipe)
	end := at + int(*length)
	sd.Raw = b[at:end:end]
	return sd
}

// filterPipeline is pdfcpu's filter pipeline of a stream dictionary, for
// direct /Filter and /DecodeParms entries without abbreviated names.
func filterPipeline(d types.Dict) ([]types.PDFFilter, bool) {
	fo, found := d.Find("Filter")
	if !found {
		return nil, true
	}
	parms, hasParms := d.Find("DecodeParms")
	switch f := fo.(type) {
	case types.Name:
		name := f.Value()
		if _, alias := inlineImageFilterAliases[name]; alias {
			return nil, false
		}
		if !hasParms {
			return []types.PDFFilter{{Name: name}}, true
		}
		switch p := parms.(type) {
		case types.Dict:
			if len(p) == 0 {
				p = nil
			}
			return []types.PDFFilter{{Name: name, DecodeParms: p}}, true
		case types.Array:
			if len(p) == 0 || len(p) == 1 && p[0] == nil {
				return []types.PDFFilter{{Name: name}}, true
			}
			pd, ok := p[0].(types.Dict)
			if len(p) > 1 || !ok {
				return nil, false
			}
			if len(pd) == 0 {
				pd = nil
			}
			return []types.PDFFilter{{Name: name, DecodeParms: pd}}, true
		}
		return nil, false
	case types.Array:
		var pa types.Array
		supports := false
		for _, e := range f {
			n, ok := e.(types.Name)
			if !ok {
				return nil, false
			}
			if _, alias := inlineImageFilterAliases[n.Value()]; alias {
				return nil, false
			}
			supports = supports || filter.SupportsDecodeParms(n.Value())
		}
		if hasParms && supports {
			switch p := parms.(type) {
			case types.Array:
				if len(p) != len(f) {
					return nil, false
				}
				pa = p
			case types.IndirectRef:
				return nil, false
			}
		}
		out := make([]types.PDFFilter, 0, len(f))
		for i, e := range f {
			pf := types.PDFFilter{Name: e.(types.Name).Value()}
			if pa != nil && pa[i] != nil {
				pd, ok := pa[i].(types.Dict)
				if !ok {
					return nil, false
				}
				pf.DecodeParms = pd
			}
			out = append(out, pf)
		}
		return out, true
	}
	return nil, false
}

// inlineImageFilterAliases are the abbreviated filter names pdfcpu
// rewrites in a stream's dictionary: such streams are left to it.
var inlineImageFilterAliases = map[string]bool{"AHx": true, "A85": true, "LZW": true, "Fl": true, "RL": true, "CCF": true, "DCT": true}

// compressed returns the object at index idx of object stream stm.
func (l *Lazy) compressed(nr, stm, idx int) types.Object {
	os := l.objectStream(stm)
	if os == nil {
		return nil
	}
	if idx < 0 || idx >= len(os.offs) {
		l.fail("object %d: index %d of object stream %d", nr, idx, stm)
		return nil
	}
	end := len(os.data)
	if idx+1 < len(os.offs) {
		end = os.offs[idx+1]
	}
	p := parser{b: os.data, pos: os.offs[idx], end: end, ok: true}
	v := p.value()
	if !p.ok {
		l.fail("object %d in object stream %d: %s", nr, stm, p.why)
		return nil
	}
	if d, ok := v.(types.Dict); ok {
		if n, ref := d.Length(); n != nil || ref != nil {
			l.fail("object %d: a stream in an object stream", nr)
			return nil
		}
	}
	return v
}

// objectStream returns object stream nr decoded, once.
func (l *Lazy) objectStream(nr int) *objStm {
	if os, ok := l.stms[nr]; ok {
		return os
	}
	e, _ := l.entry(nr)
	sd, ok := l.object(nr, true).(types.StreamDict)
	if e.typ != 1 || !ok || !sd.IsObjStm() {
		l.fail("object stream %d", nr)
		return nil
	}
	n, first := sd.N(), sd.First()
	if n == nil || first == nil || *n <= 0 || *first < 0 {
		l.fail("object stream %d: /N, /First", nr)
		return nil
	}
	limit := min(int64(MaxStreamBytes), maxObjStmBytes-l.decoded)
	data, err := DecodeStream(&sd, limit)
	if err != nil || int64(len(data)) > limit || *first > len(data) {
		l.fail("object stream %d does not decode", nr)
		return nil
	}
	l.decoded += int64(len(data))
	prolog := data[:*first]
	if i := bytes.IndexByte(prolog, '%'); i >= 0 {
		prolog = prolog[:i]
	}
	f := strings.Fields(strings.ReplaceAll(string(prolog), "\x00", " "))
	if len(f)%2 != 0 || len(f)/2 > len(l.entries) {
		l.fail("object stream %d: header", nr)
		return nil
	}
	os := &objStm{data: data, offs: make([]int, 0, len(f)/2)}
	for i := 0; i < len(f); i += 2 {
		off, err := strconv.Atoi(f[i+1])
		if err != nil || off < 0 || *first+off > len(data) || i > 0 && *first+off < os.offs[len(os.offs)-1] {
			l.fail("object stream %d: offsets", nr)
			return nil
		}
		os.offs = append(os.offs, *first+off)
	}
	l.stms[nr] = os
	return os
}

// digits reads a decimal number at i (at most 10 digits), returning -1
// when there is none, and the offset after it.
func digits(b []byte, i int) (int, int) {
	start, n := i, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 10 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == start {
		return -1, i
	}
	return n, i
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// parser parses one object of b[pos:end] into pdfcpu's types as pdfcpu's
// parser would, for the grammar where the two agree (see the lazy
// reader); ok turns false, with why, on anything else.
type parser struct {
	b     []byte
	pos   int
	end   int
	depth int
	ok    bool
	why   string
}

func (p *parser) fail(why string) {
	if p.ok {
		p.ok, p.why = false, why
	}
}

// skip passes white space. A comment, or a byte pdfcpu reads as space
// and this package does not (vertical tab), ends the parse.
func (p *parser) skip() {
	for p.pos < p.end {
		c := p.b[p.pos]
		if isSpace(c) {
			p.pos++
			continue
		}
		if c == '%' || c == '\v' {
			p.fail("comment")
		}
		return
	}
}

// keyword reports whether the keyword kw, followed by white space, is
// at pos (which it leaves there).
func (p *parser) keyword(kw string) bool {
	e := p.pos + len(kw)
	return e < p.end && string(p.b[p.pos:e]) == kw && isSpace(p.b[e])
}

// uniSpace reports whether b starts with a character pdfcpu takes for
// white space where this package does not: a vertical tab or a non-ASCII
// space in UTF-8.
func uniSpace(b []byte) (bool, int) {
	if b[0] == '\v' {
		return true, 1
	}
	if b[0] < utf8.RuneSelf {
		return false, 1
	}
	r, n := utf8.DecodeRune(b)
	return unicode.IsSpace(r), n
}

// keywords reports whether b, the text of a name, holds a
// keyword pdfcpu may take for the end of an object ("stream" or
// "endobj" followed by what it reads as white space, or ending b, where
// white space may follow): the object is left to it.
func keywords(b []byte) bool {
	for _, kw := range [...]string{"stream", "endobj"} {
		for i := 0; ; {
			k := bytes.Index(b[i:], []byte(kw))
			if k < 0 {
				break
			}
			e := i + k + len(kw)
			if e == len(b) || b[e] <= ' ' || b[e] == 0x85 || b[e] == 0xA0 {
				return true
			}
			i = e
		}
	}
	return false
}

func (p *parser) value() types.Object {
	p.skip()
	if !p.ok {
		return nil
	}
	if p.pos >= p.end {
		p.fail("no value")
		return nil
	}
	switch c := p.b[p.pos]; {
	case c == '[':
		return p.array()
	case c == '/':
		n := p.name()
		if !p.ok {
			return nil
		}
		return n
	case c == '<':
		if p.pos+1 < p.end && p.b[p.pos+1] == '<' {
			return p.dict()
		}
		return p.hex()
	case c == '(':
		return p.literal()
	case c == 't':
		return p.word("true", types.Boolean(true))
	case c == 'f':
		return p.word("false", types.Boolean(false))
	case c == 'n':
		return p.word("null", nil)
	case c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		return p.number()
	}
	p.fail("unexpected byte")
	return nil
}

func (p *parser) word(w string, v types.Object) types.Object {
	e := p.pos + len(w)
	if e > p.end || string(p.b[p.pos:e]) != w || e < p.end && !isSpace(p.b[e]) && !isDelim(p.b[e]) {
		p.fail("keyword")
		return nil
	}
	p.pos = e
	return v
}

func (p *parser) name() types.Name {
	p.pos++
	start := p.pos
	esc := false
	for p.pos < p.end {
		c := p.b[p.pos]
		if isSpace(c) || c == '/' || c == '<' || c == '>' || c == '(' || c == ')' || c == '[' || c == ']' || c == '%' {
			break
		}
		if c == '\v' || c >= utf8.RuneSelf {
			sp, n := uniSpace(p.b[p.pos:p.end])
			if sp {
				p.fail("space in a name")
				return ""
			}
			p.pos += n
			continue
		}
		esc = esc || c == '#'
		p.pos++
	}
	s := p.b[start:p.pos]
	// A backslash would hide from pdfcpu a string that follows.
	if keywords(s) || bytes.IndexByte(s, '\\') >= 0 {
		p.fail("keyword in a name")
		return ""
	}
	if esc {
		d, err := types.DecodeName(string(s))
		if err != nil {
			p.fail("name escape")
			return ""
		}
		return types.Name(d)
	}
	return types.Name(s)
}

func (p *parser) literal() types.Object {
	depth, esc := 0, false
	for i := p.pos; i < p.end; i++ {
		c := p.b[i]
		if !esc && c == '\\' {
			esc = true
			continue
		}
		if esc {
			esc = false
			continue
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			// pdfcpu skips string literals when it looks for the
			// keywords that end an object.
			s := p.b[p.pos+1 : i]
			p.pos = i + 1
			return types.StringLiteral(s)
		}
	}
	p.fail("unbalanced string")
	return nil
}

func (p *parser) hex() types.Object {
	k := bytes.IndexByte(p.b[p.pos+1:p.end], '>')
	if k < 0 {
		p.fail("unterminated hex string")
		return nil
	}
	in := bytes.Trim(p.b[p.pos+1:p.pos+1+k], " \t\n\v\f\r")
	for _, c := range in {
		if _, ok := hexVal(c); !ok {
			p.fail("hex string")
			return nil
		}
	}
	p.pos += k + 2
	s := strings.ToUpper(string(in))
	if len(s)%2 == 1 {
		s += "0"
	}
	return types.HexLiteral(s)
}

func (p *parser) array() types.Object {
	if p.depth++; p.depth > maxLazyNesting {
		p.fail("nesting")
		return nil
	}
	p.pos++
	a := types.Array{}
	for {
		p.skip()
		if !p.ok {
			return nil
		}
		if p.pos >= p.end {
			p.fail("unterminated array")
			return nil
		}
		if p.b[p.pos] == ']' {
			p.pos++
			break
		}
		v := p.value()
		if !p.ok {
			return nil
		}
		a = append(a, v)
	}
	p.depth--
	return a
}

func (p *parser) dict() types.Object {
	if p.depth++; p.depth > maxLazyNesting {
		p.fail("nesting")
		return nil
	}
	p.pos += 2
	d := types.Dict{}
	for {
		p.skip()
		if !p.ok {
			return nil
		}
		if p.pos >= p.end {
			p.fail("unterminated dictionary")
			return nil
		}
		if c := p.b[p.pos]; c == '>' {
			if p.pos+1 < p.end && p.b[p.pos+1] == '>' {
				p.pos += 2
				break
			}
			p.fail("dictionary end")
			return nil
		} else if c != '/' {
			p.fail("dictionary key")
			return nil
		}
		key := p.name()
		if !p.ok {
			return nil
		}
		v := p.value()
		if !p.ok {
			return nil
		}
		if v != nil {
			d[string(key)] = v
		}
		if p.end-p.pos < 2 {
			p.fail("unterminated dictionary")
			return nil
		}
	}
	p.depth--
	return d
}

// numberEnd reports whether c ends a number for pdfcpu: white space or
// one of /<([]>%.
func numberEnd(c byte) bool {
	switch c {
	case '/', '<', '(', '[', ']', '>', '%':
		return true
	}
	return isSpace(c)
}

// refEnd reports whether c ends a reference's generation for pdfcpu.
func refEnd(c byte) bool {
	switch c {
	case '/', '<', '(', '[', ']', '>':
		return true
	}
	return isSpace(c)
}

// delimiter is pdfcpu's set of delimiters after a number.
func delimiter(c byte) bool {
	switch c {
	case '<', '>', '[', ']', '(', ')', '/':
		return true
	}
	return false
}

// number parses an integer, a real or a reference "n g R".
func (p *parser) number() types.Object {
	b := p.b
	i := p.pos
	for i < p.end && !numberEnd(b[i]) {
		i++
	}
	tok := b[p.pos:i]
	j := 0
	if j < len(tok) && (tok[j] == '+' || tok[j] == '-') {
		j++
	}
	ds, dots := 0, 0
	for _, c := range tok[j:] {
		switch {
		case c >= '0' && c <= '9':
			ds++
		case c == '.':
			dots++
		default:
			p.fail("number")
			return nil
		}
	}
	if ds == 0 || dots > 1 {
		p.fail("number")
		return nil
	}
	if dots == 1 {
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil {
			p.fail("number")
			return nil
		}
		p.pos = i
		return types.Float(f)
	}
	n, err := strconv.Atoi(string(tok))
	if err != nil {
		p.fail("number")
		return nil
	}
	p.pos = i
	if i >= p.end || delimiter(b[i]) {
		return types.Integer(n)
	}
	if b[i] == '%' {
		p.fail("comment")
		return nil
	}
	// "n g R": white space, a generation ended by white space, "R".
	k := skipSpaces(b[:p.end], i)
	if k < p.end && (b[k] == '%' || b[k] == '\v') {
		p.fail("comment")
		return nil
	}
	g0 := k
	for k < p.end && !refEnd(b[k]) {
		if b[k] == '\v' || b[k] >= utf8.RuneSelf {
			p.fail("byte in a number")
			return nil
		}
		k++
	}
	if k >= p.end || k == g0 || delimiter(b[k]) {
		return types.Integer(n)
	}
	g, err := strconv.Atoi(string(b[g0:k]))
	if err != nil {
		return types.Integer(n)
	}
	m := skipSpaces(b[:p.end], k)
	if m < p.end && (b[m] == '%' || b[m] == '\v') {
		p.fail("comment")
		return nil
	}
	if m >= p.end || b[m] != 'R' {
		return types.Integer(n)
	}
	if m+1 < p.end && !isSpace(b[m+1]) && !isDelim(b[m+1]) {
		p.fail("reference")
		return nil
	}
	p.pos = m + 1
	return *types.NewIndirectRef(n, g)
}
