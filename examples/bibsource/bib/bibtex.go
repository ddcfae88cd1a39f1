package bib

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entry is one entry of a BibTeX file.
type Entry struct {
	Type string // lower case: article, inproceedings, misc, ...
	Key  string
	// Fields are by lower-case name. A value has its outer braces or
	// quotes removed, @string macros expanded and # concatenations joined;
	// inner braces and LaTeX are kept (see Text).
	Fields map[string]string
	Line   int // 1-based line of the entry's '@'
}

// ErrSyntax is wrapped by every error of Parse.
var ErrSyntax = errors.New("malformed BibTeX")

// Limits of Parse: a BibTeX file beyond them is refused with an error, not
// read in part.
const (
	maxDepth   = 64      // nested braces in one value
	maxEntries = 100_000 // entries and @string definitions
	maxValue   = 1 << 20 // bytes of one expanded value
	// maxTotal bounds the bytes of every value together, macros
	// expanded: macros built from macros would otherwise grow a small
	// file into gigabytes.
	maxTotal = 32 << 20
)

// Parse reads BibTeX as reference managers export it: @entries delimited
// by braces or parentheses; values in braces (nested), in quotes, bare
// numbers or @string macros (the month names are predefined), joined with
// #; @string, @preamble and @comment; text outside entries, and lines that
// start with %, as comments. Field names, entry types and macro names are
// case-insensitive. An error names the line and what is wrong, never the
// input's text.
func Parse(src string) ([]*Entry, error) {
	if !utf8.ValidString(src) {
		return nil, fmt.Errorf("%w: not UTF-8 text", ErrSyntax)
	}
	if strings.IndexByte(src, 0) >= 0 {
		return nil, fmt.Errorf("%w: holds a NUL byte", ErrSyntax)
	}
	p := &parser{s: src, line: 1, macros: map[string]string{}}
	for _, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		p.macros[m] = strings.ToUpper(m[:1]) + m[1:]
	}
	var out []*Entry
	for {
		if !p.skipJunk() {
			return out, nil
		}
		e, err := p.entry()
		if err != nil {
			return nil, err
		}
		if e != nil {
			if len(out) >= maxEntries {
				return nil, p.errorf("more than %d entries", maxEntries)
			}
			out = append(out, e)
		}
	}
}

type parser struct {
	s      string
	i      int
	line   int
	macros map[string]string
	count  int // entries and macros read
	total  int // bytes of the values read, macros expanded
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrSyntax, p.line, fmt.Sprintf(format, a...))
}

func (p *parser) eof() bool { return p.i >= len(p.s) }

func (p *parser) next() byte {
	c := p.s[p.i]
	p.i++
	if c == '\n' {
		p.line++
	}
	return c
}

// skipJunk skips text outside entries up to the next '@', reporting
// whether there is one.
func (p *parser) skipJunk() bool {
	atLineStart := true
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '@':
			p.i++
			return true
		case c == '%' && atLineStart:
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
			continue
		}
		p.next()
		atLineStart = c == '\n' || (atLineStart && (c == ' ' || c == '\t' || c == '\r'))
	}
	return false
}

func (p *parser) space() {
	for !p.eof() {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n', '\f', '\v':
			p.next()
		default:
			return
		}
	}
}

// ident reads a name: an entry type, a field or macro name.
func (p *parser) ident() string {
	start := p.i
	for !p.eof() {
		c := p.s[p.i]
		if c <= ' ' || strings.IndexByte(`{}()",=#%'@~\`, c) >= 0 {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// entry reads what follows an '@'. It returns nil for @comment, @string
// and @preamble.
func (p *parser) entry() (*Entry, error) {
	line := p.line
	p.space()
	typ := strings.ToLower(p.ident())
	if typ == "" {
		return nil, p.errorf("'@' is not followed by an entry type")
	}
	p.space()
	if p.eof() || p.s[p.i] != '{' && p.s[p.i] != '(' {
		if typ == "comment" {
			return nil, nil // "@comment" as a word in a comment line
		}
		return nil, p.errorf("@%s is not followed by '{' or '('", typ)
	}
	open := p.next()
	closer := byte('}')
	if open == '(' {
		closer = ')'
	}
	switch typ {
	case "comment":
		// Its text is skipped up to the closing delimiter, braces balanced.
		_, err := p.balanced(closer, open)
		return nil, err
	case "preamble":
		if _, err := p.value(); err != nil {
			return nil, err
		}
		return nil, p.close(closer, "@preamble")
	case "string":
		for {
			p.space()
			name := strings.ToLower(p.ident())
			if name == "" {
				return nil, p.errorf("@string without a name")
			}
			p.space()
			if p.eof() || p.s[p.i] != '=' {
				return nil, p.errorf("@string %q has no '='", name)
			}
			p.next()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			if p.count++; p.count > maxEntries {
				return nil, p.errorf("more than %d entries", maxEntries)
			}
			p.macros[name] = v
			p.space()
			if !p.eof() && p.s[p.i] == ',' {
				p.next()
				continue
			}
			return nil, p.close(closer, "@string")
		}
	}
	e := &Entry{Type: typ, Fields: map[string]string{}, Line: line}
	p.space()
	start := p.i
	for !p.eof() && p.s[p.i] != ',' && p.s[p.i] != closer && p.s[p.i] != '\n' {
		p.i++
	}
	e.Key = strings.TrimSpace(p.s[start:p.i])
	if e.Key == "" {
		return nil, p.errorf("@%s has no key", typ)
	}
	for {
		p.space()
		if p.eof() {
			return nil, p.errorf("@%s %q is not closed", typ, e.Key)
		}
		switch p.s[p.i] {
		case closer:
			p.next()
			return e, nil
		case ',':
			p.next()
			continue
		}
		name := strings.ToLower(p.ident())
		if name == "" {
			return nil, p.errorf("@%s %q: expected a field name, found %q", typ, e.Key, p.s[p.i])
		}
		p.space()
		if p.eof() || p.s[p.i] != '=' {
			return nil, p.errorf("@%s %q: field %q has no '='", typ, e.Key, name)
		}
		p.next()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := e.Fields[name]; !dup {
			e.Fields[name] = v
		}
		p.space()
		if !p.eof() && p.s[p.i] != ',' && p.s[p.i] != closer {
			return nil, p.errorf("@%s %q: field %q is followed by %q, not ',' or %q", typ, e.Key, name, p.s[p.i], closer)
		}
	}
}

// close expects the closing delimiter of an entry.
func (p *parser) close(closer byte, what string) error {
	p.space()
	if p.eof() || p.s[p.i] != closer {
		return p.errorf("%s is not closed with %q", what, closer)
	}
	p.next()
	return nil
}

// value reads a value: pieces joined with '#'.
func (p *parser) value() (string, error) {
	var b strings.Builder
	for {
		p.space()
		if p.eof() {
			return "", p.errorf("a value is missing at the end of the file")
		}
		var piece string
		var err error
		switch c := p.s[p.i]; {
		case c == '{':
			p.next()
			piece, err = p.balanced('}', '{')
		case c == '"':
			p.next()
			piece, err = p.quoted()
		case c >= '0' && c <= '9':
			start := p.i
			for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			piece = p.s[start:p.i]
		default:
			name := strings.ToLower(p.ident())
			if name == "" {
				return "", p.errorf("expected a value, found %q", c)
			}
			m, ok := p.macros[name]
			if !ok {
				return "", p.errorf("undefined @string %q", name)
			}
			piece = m
		}
		if err != nil {
			return "", err
		}
		if b.Len()+len(piece) > maxValue {
			return "", p.errorf("a value is longer than %d bytes", maxValue)
		}
		if p.total += len(piece); p.total > maxTotal {
			return "", p.errorf("the values, macros expanded, exceed %d bytes", maxTotal)
		}
		b.WriteString(piece)
		p.space()
		if p.eof() || p.s[p.i] != '#' {
			return b.String(), nil
		}
		p.next()
	}
}

// balanced reads up to the unnested closer (the opening one is consumed);
// braces inside must balance.
func (p *parser) balanced(closer, opener byte) (string, error) {
	start, line := p.i, p.line
	depth := 0
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\\' && !p.eof():
			p.next() // an escaped character: \{ or \}
		case c == '{' || c == opener && opener != '{':
			if depth++; depth > maxDepth {
				return "", p.errorf("braces nested deeper than %d", maxDepth)
			}
		case depth == 0 && c == closer:
			return p.s[start : p.i-1], nil
		case c == '}' || c == ')' && opener == '(':
			if depth == 0 {
				return "", p.errorf("unbalanced '}'")
			}
			depth--
		}
	}
	return "", fmt.Errorf("%w: line %d: a brace opened here is never closed", ErrSyntax, line)
}

// quoted reads a "..." value; a '"' inside braces does not end it.
func (p *parser) quoted() (string, error) {
	start, line := p.i, p.line
	depth := 0
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\\' && !p.eof():
			p.next()
		case c == '{':
			if depth++; depth > maxDepth {
				return "", p.errorf("braces nested deeper than %d", maxDepth)
			}
		case c == '}':
			if depth == 0 {
				return "", p.errorf("unbalanced '}' in a quoted value")
			}
			depth--
		case c == '"' && depth == 0:
			return p.s[start : p.i-1], nil
		}
	}
	return "", fmt.Errorf("%w: line %d: a quote opened here is never closed", ErrSyntax, line)
}

// accents maps the LaTeX accent commands reference managers write to the
// combining marks they stand for.
var accents = map[byte]rune{
	'"': '\u0308', '\'': '\u0301', '`': '\u0300', '^': '\u0302', '~': '\u0303',
	'=': '\u0304', '.': '\u0307', 'c': '\u0327', 'u': '\u0306', 'v': '\u030c', 'H': '\u030b',
}

// symbols are LaTeX commands for single characters.
var symbols = map[string]string{
	"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
	"i": "ı", "&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", "textendash": "–",
	"textemdash": "—", "LaTeX": "LaTeX", "TeX": "TeX",
}

// Text returns a field value as plain text: braces dropped, the common
// LaTeX accents and symbols written as characters, ~ as a space, -- and ---
// as dashes, white space collapsed.
func Text(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '{', '}', '$':
			continue
		case '~':
			b.WriteByte(' ')
			continue
		case '-':
			switch {
			case strings.HasPrefix(v[i:], "---"):
				b.WriteString("—")
				i += 2
			case strings.HasPrefix(v[i:], "--"):
				b.WriteString("–")
				i++
			default:
				b.WriteByte('-')
			}
			continue
		case '\\':
		default:
			b.WriteByte(c)
			continue
		}
		// A command: \"o, \"{o}, \c{c}, \ss, \&.
		if i+1 >= len(v) {
			break
		}
		if mark, ok := accents[v[i+1]]; ok && (!isLetter(v[i+1]) || i+2 < len(v) && (v[i+2] == '{' || v[i+2] == ' ')) {
			j := i + 2
			for j < len(v) && (v[j] == '{' || v[j] == ' ') {
				j++
			}
			if j < len(v) {
				r, size := utf8.DecodeRuneInString(v[j:])
				b.WriteRune(r)
				b.WriteRune(mark)
				i = j + size - 1
				continue
			}
		}
		j := i + 1
		for j < len(v) && isLetter(v[j]) {
			j++
		}
		if j == i+1 && j < len(v) {
			j++ // \& and other one-symbol commands
		}
		if s, ok := symbols[v[i+1:j]]; ok {
			b.WriteString(s)
		}
		// An unknown command is dropped; its argument, if any, stays.
		i = j - 1
	}
	return strings.Join(strings.Fields(compose(b.String())), " ")
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// compose folds a letter and a following combining mark into the
// precomposed character where Latin-1 and Latin Extended-A have one.
func compose(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Mn, r) }) {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) {
			if c, ok := precomposed[[2]rune{rs[i], rs[i+1]}]; ok {
				b.WriteRune(c)
				i++
				continue
			}
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}

// precomposed lists the letters with accents BibTeX files write most.
var precomposed = func() map[[2]rune]rune {
	m := map[[2]rune]rune{}
	add := func(mark rune, pairs string) {
		rs := []rune(pairs)
		for i := 0; i+1 < len(rs); i += 2 {
			m[[2]rune{rs[i], mark}] = rs[i+1]
		}
	}
	add('\u0308', "aäoöuüAÄOÖUÜeëiïyÿEË")
	add('\u0301', "aáeéiíoóuúyýAÁEÉIÍOÓUÚcćnńsśzźCĆNŃSŚZŹ")
	add('\u0300', "aàeèiìoòuùAÀEÈIÌOÒUÙ")
	add('\u0302', "aâeêiîoôuûAÂEÊIÎOÔUÛ")
	add('\u0303', "aãnñoõAÃNÑOÕ")
	add('\u0327', "cçCÇsşSŞ")
	add('\u030c', "cčsšzžrřeěCČSŠZŽRŘEĚ")
	return m
}()

// Authors splits an author or editor field at " and " (outside braces) and
// writes each name "First Last": "Vaswani, Ashish" becomes "Ashish
// Vaswani"; a braced corporate name stays whole.
func Authors(v string) []string {
	var names []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ' ', '\t', '\n', '\r':
			if depth == 0 && i+5 <= len(v) && strings.EqualFold(v[i:i+5], " and ") {
				names = append(names, v[start:i])
				start = i + 5
				i += 4
			}
		}
	}
	names = append(names, v[start:])
	var out []string
	for _, n := range names {
		if last, first, ok := cutTopLevel(n, ','); ok {
			if _, jr, ok := cutTopLevel(first, ','); ok {
				// "von Last, Jr, First"
				first = jr
			}
			n = first + " " + last
		}
		if t := Text(n); t != "" && !strings.EqualFold(t, "others") {
			out = append(out, t)
		}
	}
	return out
}

// cutTopLevel cuts s at the first sep outside braces.
func cutTopLevel(s string, sep byte) (before, after string, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case sep:
			if depth == 0 {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}

// Files returns the PDFs a file field names, in order, as written: the
// field holds files separated by ';', each a bare path or, as Zotero and
// JabRef write them, description:path:type, with '\:', '\;' and '\\'
// escapes. Files that are not PDFs (snapshots, web pages) are left out.
func Files(v string) []string {
	var out []string
	for _, f := range splitEscaped(v, ';', false) {
		parts := splitEscaped(f, ':', true)
		var p string
		switch {
		case len(parts) == 1:
			p = parts[0]
		case len(parts) == 3 && len(parts[1]) > 0:
			p = parts[1] // description:path:type
		default:
			// A Windows drive (C:\x.pdf) or a two-part form: the part that
			// names a PDF, written back with its colons.
			for i := range parts {
				if isPDF(strings.Join(parts[i:], ":")) {
					p = strings.Join(parts[i:], ":")
					break
				}
			}
			if p == "" {
				for _, q := range parts {
					if isPDF(q) {
						p = q
					}
				}
			}
		}
		p = strings.TrimSpace(p)
		if isPDF(p) || len(parts) == 3 && strings.Contains(strings.ToLower(parts[2]), "pdf") {
			out = append(out, p)
		}
	}
	return out
}

func isPDF(p string) bool { return strings.EqualFold(path.Ext(strings.TrimSpace(p)), ".pdf") }

// splitEscaped splits s at sep, honouring backslash escapes: with unescape,
// \x becomes x; without, escapes are kept for a later split, except that
// of sep.
func splitEscaped(s string, sep byte, unescape bool) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if unescape || s[i+1] == sep {
				b.WriteByte(s[i+1])
			} else {
				b.WriteString(s[i : i+2])
			}
			i++
			continue
		}
		if c == sep {
			out = append(out, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(out, b.String())
}

// arxivInJournal finds an arXiv id in a field such as Google Scholar's
// journal = {arXiv preprint arXiv:1706.03762}.
var arxivInJournal = regexp.MustCompile(`(?i)arxiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?)`)
