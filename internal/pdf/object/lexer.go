package object

import (
	"bytes"
	"strconv"
)

// TokKind classifies a content-stream token.
type TokKind uint8

// The kinds of token.
const (
	TokEOF TokKind = iota
	TokNum
	TokName
	TokString // literal or hex string, already decoded to bytes
	TokArrayOpen
	TokArrayClose
	TokDictOpen
	TokDictClose
	TokOp // operator keyword, including true/false/null
)

// Token is one lexeme of a content stream. For TokName, TokString and TokOp
// the bytes are in val (which may alias the input; copy before keeping it).
type Token struct {
	Kind TokKind
	Num  float64
	Val  []byte
}

// Lexer splits a decoded content stream into tokens (ISO 32000-1 §7.2,
// §7.8.2). It never fails: malformed input yields operator tokens that the
// interpreter ignores, so a damaged stream degrades rather than aborts.
type Lexer struct {
	data []byte
	Pos  int    // offset of the next token in data
	buf  []byte // arena for decoded strings, valid until release
}

// Release lets the arena be reused; strings returned earlier become invalid.
func (l *Lexer) Release() { l.buf = l.buf[:0] }

// NewLexer returns a lexer of data, a decoded content stream.
func NewLexer(data []byte) *Lexer { return &Lexer{data: data} }

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

// Next returns the next token; kind TokEOF at the end.
func (l *Lexer) Next() Token {
	d := l.data
	for l.Pos < len(d) {
		c := d[l.Pos]
		if isSpace(c) {
			l.Pos++
			continue
		}
		if c == '%' { // comment to end of line
			for l.Pos < len(d) && d[l.Pos] != '\n' && d[l.Pos] != '\r' {
				l.Pos++
			}
			continue
		}
		break
	}
	if l.Pos >= len(d) {
		return Token{Kind: TokEOF}
	}
	c := d[l.Pos]
	switch {
	case c == '/':
		l.Pos++
		start := l.Pos
		for l.Pos < len(d) && !isSpace(d[l.Pos]) && !isDelim(d[l.Pos]) {
			l.Pos++
		}
		name := d[start:l.Pos]
		if bytes.IndexByte(name, '#') >= 0 {
			name = decodeNameEscapes(name)
		}
		return Token{Kind: TokName, Val: name}
	case c == '(':
		l.Pos++
		return Token{Kind: TokString, Val: l.literalString()}
	case c == '<':
		if l.Pos+1 < len(d) && d[l.Pos+1] == '<' {
			l.Pos += 2
			return Token{Kind: TokDictOpen}
		}
		l.Pos++
		return Token{Kind: TokString, Val: l.HexString()}
	case c == '>':
		l.Pos++
		if l.Pos < len(d) && d[l.Pos] == '>' {
			l.Pos++
			return Token{Kind: TokDictClose}
		}
		return Token{Kind: TokOp, Val: d[l.Pos-1 : l.Pos]}
	case c == '[':
		l.Pos++
		return Token{Kind: TokArrayOpen}
	case c == ']':
		l.Pos++
		return Token{Kind: TokArrayClose}
	case c == '{' || c == '}' || c == ')':
		l.Pos++
		return Token{Kind: TokOp, Val: d[l.Pos-1 : l.Pos]}
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return l.number()
	}
	start := l.Pos
	for l.Pos < len(d) && !isSpace(d[l.Pos]) && !isDelim(d[l.Pos]) {
		l.Pos++
	}
	return Token{Kind: TokOp, Val: d[start:l.Pos]}
}

// number lexes an integer or real. Malformed numbers such as "--1" or "1.2.3"
// are read leniently, as most viewers do.
func (l *Lexer) number() Token {
	d := l.data
	start := l.Pos
	l.Pos++
	for l.Pos < len(d) {
		c := d[l.Pos]
		if (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' {
			l.Pos++
			continue
		}
		break
	}
	s := d[start:l.Pos]
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
		return Token{Kind: TokNum, Num: f}
	}
	v += frac
	if neg {
		v = -v
	}
	return Token{Kind: TokNum, Num: v}
}

// literalString decodes a (...) string with escapes and balanced parentheses.
func (l *Lexer) literalString() []byte {
	d := l.data
	start := l.Pos
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
				l.Pos = i + 1
				return d[start:i]
			}
		}
	}
	depth = 1
	base := len(l.buf)
	out := l.buf
	for l.Pos < len(d) {
		c := d[l.Pos]
		l.Pos++
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
			if l.Pos < len(d) && d[l.Pos] == '\n' {
				l.Pos++
			}
			c = '\n'
		case '\\':
			if l.Pos >= len(d) {
				break
			}
			e := d[l.Pos]
			l.Pos++
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
				if l.Pos < len(d) && d[l.Pos] == '\n' {
					l.Pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.Pos < len(d) && d[l.Pos] >= '0' && d[l.Pos] <= '7'; k++ {
						v = v*8 + int(d[l.Pos]-'0')
						l.Pos++
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

// HexString decodes a <...> string; an odd final digit is padded with 0.
func (l *Lexer) HexString() []byte {
	d := l.data
	base := len(l.buf)
	out := l.buf
	var hi byte
	half := false
	for l.Pos < len(d) {
		c := d[l.Pos]
		l.Pos++
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

// SkipInline moves past an inline image after its BI operator: its
// dictionary, at most 65,536 tokens, to ID, and its data to EI.
func (l *Lexer) SkipInline() {
	for range 1 << 16 {
		t := l.Next()
		if t.Kind == TokEOF {
			return
		}
		if t.Kind == TokOp && string(t.Val) == "ID" {
			l.SkipInlineImage()
			return
		}
	}
}

// SkipInlineImage moves past inline image data after the ID operator, to the
// EI operator that ends it. It returns false when no EI is found.
func (l *Lexer) SkipInlineImage() bool {
	d := l.data
	if l.Pos < len(d) && isSpace(d[l.Pos]) {
		l.Pos++
	}
	for i := l.Pos; i+1 < len(d); i++ {
		if d[i] == 'E' && d[i+1] == 'I' && (i == 0 || isSpace(d[i-1])) && (i+2 >= len(d) || isSpace(d[i+2]) || isDelim(d[i+2])) {
			l.Pos = i + 2
			return true
		}
	}
	l.Pos = len(d)
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
