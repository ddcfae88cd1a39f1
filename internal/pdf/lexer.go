package pdf

import (
	"bytes"
	"strconv"
)

// tokKind classifies a content-stream token.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokNum
	tokName
	tokString // literal or hex string, already decoded to bytes
	tokArrayOpen
	tokArrayClose
	tokDictOpen
	tokDictClose
	tokOp // operator keyword, including true/false/null
)

// token is one lexeme of a content stream. For tokName, tokString and tokOp
// the bytes are in val (which may alias the input; copy before keeping it).
type token struct {
	kind tokKind
	num  float64
	val  []byte
}

// lexer splits a decoded content stream into tokens (ISO 32000-1 §7.2,
// §7.8.2). It never fails: malformed input yields operator tokens that the
// interpreter ignores, so a damaged stream degrades rather than aborts.
type lexer struct {
	data []byte
	pos  int
	buf  []byte // arena for decoded strings, valid until release
}

// release lets the arena be reused; strings returned earlier become invalid.
func (l *lexer) release() { l.buf = l.buf[:0] }

func newLexer(data []byte) *lexer { return &lexer{data: data} }

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\f', 0:
		return true
	}
	return false
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next token; kind tokEOF at the end.
func (l *lexer) next() token {
	d := l.data
	for l.pos < len(d) {
		c := d[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == '%' { // comment to end of line
			for l.pos < len(d) && d[l.pos] != '\n' && d[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		break
	}
	if l.pos >= len(d) {
		return token{kind: tokEOF}
	}
	c := d[l.pos]
	switch {
	case c == '/':
		l.pos++
		start := l.pos
		for l.pos < len(d) && !isSpace(d[l.pos]) && !isDelim(d[l.pos]) {
			l.pos++
		}
		name := d[start:l.pos]
		if bytes.IndexByte(name, '#') >= 0 {
			name = decodeNameEscapes(name)
		}
		return token{kind: tokName, val: name}
	case c == '(':
		l.pos++
		return token{kind: tokString, val: l.literalString()}
	case c == '<':
		if l.pos+1 < len(d) && d[l.pos+1] == '<' {
			l.pos += 2
			return token{kind: tokDictOpen}
		}
		l.pos++
		return token{kind: tokString, val: l.hexString()}
	case c == '>':
		l.pos++
		if l.pos < len(d) && d[l.pos] == '>' {
			l.pos++
			return token{kind: tokDictClose}
		}
		return token{kind: tokOp, val: d[l.pos-1 : l.pos]}
	case c == '[':
		l.pos++
		return token{kind: tokArrayOpen}
	case c == ']':
		l.pos++
		return token{kind: tokArrayClose}
	case c == '{' || c == '}' || c == ')':
		l.pos++
		return token{kind: tokOp, val: d[l.pos-1 : l.pos]}
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return l.number()
	}
	start := l.pos
	for l.pos < len(d) && !isSpace(d[l.pos]) && !isDelim(d[l.pos]) {
		l.pos++
	}
	return token{kind: tokOp, val: d[start:l.pos]}
}

// number lexes an integer or real. Malformed numbers such as "--1" or "1.2.3"
// are read leniently, as most viewers do.
func (l *lexer) number() token {
	d := l.data
	start := l.pos
	l.pos++
	for l.pos < len(d) {
		c := d[l.pos]
		if (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' {
			l.pos++
			continue
		}
		break
	}
	s := d[start:l.pos]
	// Fast path for plain integers and decimals.
	var v float64
	neg := false
	i := 0
	for i < len(s) && (s[i] == '-' || s[i] == '+') {
		if s[i] == '-' {
			neg = !neg
		}
		i++
	}
	ok := i < len(s)
	frac := 0.0
	scale := 1.0
	seenDot := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if seenDot {
				scale /= 10
				frac += float64(c-'0') * scale
			} else {
				v = v*10 + float64(c-'0')
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			ok = false
		}
		if !ok {
			break
		}
	}
	if !ok {
		f, err := strconv.ParseFloat(string(s), 64)
		if err != nil {
			f = 0
		}
		return token{kind: tokNum, num: f}
	}
	v += frac
	if neg {
		v = -v
	}
	return token{kind: tokNum, num: v}
}

// literalString decodes a (...) string with escapes and balanced parentheses.
func (l *lexer) literalString() []byte {
	d := l.data
	start := l.pos
	depth := 1
	// Fast path: no escapes before the closing parenthesis.
	for i := start; i < len(d); i++ {
		c := d[i]
		if c == '\\' || c == '\r' {
			break
		}
		if c == '(' {
			depth++
		} else if c == ')' {
			depth--
			if depth == 0 {
				l.pos = i + 1
				return d[start:i]
			}
		}
	}
	depth = 1
	base := len(l.buf)
	out := l.buf
	for l.pos < len(d) {
		c := d[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				l.buf = out
				return out[base:len(out):len(out)]
			}
		case '\r':
			// An end-of-line marker in a string is read as a single newline.
			if l.pos < len(d) && d[l.pos] == '\n' {
				l.pos++
			}
			c = '\n'
		case '\\':
			if l.pos >= len(d) {
				break
			}
			e := d[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(d) && d[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(d) && d[l.pos] >= '0' && d[l.pos] <= '7'; k++ {
						v = v*8 + int(d[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	l.buf = out
	return out[base:len(out):len(out)]
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hexString decodes a <...> string; an odd final digit is padded with 0.
func (l *lexer) hexString() []byte {
	d := l.data
	base := len(l.buf)
	out := l.buf
	var hi byte
	half := false
	for l.pos < len(d) {
		c := d[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v, ok := hexVal(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
			half = false
		} else {
			hi = v
			half = true
		}
	}
	if half {
		out = append(out, hi<<4)
	}
	l.buf = out
	return out[base:len(out):len(out)]
}

// skipInline moves past an inline image after its BI operator: its
// dictionary, at most 65,536 tokens, to ID, and its data to EI.
func (l *lexer) skipInline() {
	for range 1 << 16 {
		t := l.next()
		if t.kind == tokEOF {
			return
		}
		if t.kind == tokOp && string(t.val) == "ID" {
			l.skipInlineImage()
			return
		}
	}
}

// skipInlineImage moves past inline image data after the ID operator, to the
// EI operator that ends it. It returns false when no EI is found.
func (l *lexer) skipInlineImage() bool {
	d := l.data
	if l.pos < len(d) && isSpace(d[l.pos]) {
		l.pos++
	}
	for i := l.pos; i+1 < len(d); i++ {
		if d[i] == 'E' && d[i+1] == 'I' && (i == 0 || isSpace(d[i-1])) && (i+2 >= len(d) || isSpace(d[i+2]) || isDelim(d[i+2])) {
			l.pos = i + 2
			return true
		}
	}
	l.pos = len(d)
	return false
}

// decodeNameEscapes replaces #xx escapes in a name.
func decodeNameEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			h, ok1 := hexVal(b[i+1])
			lo, ok2 := hexVal(b[i+2])
			if ok1 && ok2 {
				out = append(out, h<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}
