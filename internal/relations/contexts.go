package relations

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Context is a sentence of a paper's body that cites one of its
// references: why and where the paper cites it.
type Context struct {
	Page int    // the page of the paper's PDF it is on, 1-based
	Text string // the sentence, one line, at most maxContextRunes runes
}

// Bounds of the citing-sentence finder. They bound the work on hostile
// text (a body of 100,000 bracketed numbers, 5,000 entries), not what a
// real paper holds.
const (
	maxContexts     = 2       // sentences kept per reference
	maxContextRunes = 300     // runes of one sentence
	maxMarkers      = 20000   // citation markers read in one paper
	maxRange        = 100     // numbers one range ("[3–5]") stands for
	maxBody         = 8 << 20 // bytes of body text read
)

// authorYearLabel is how an author–year paper cites a work: "Vaswani,
// 2017", "Vaswani and Shazeer, 2017", "Vaswani et al., 2017"; "" without
// an author or a year.
func authorYearLabel(authors []string, year int) string {
	if len(authors) == 0 || year == 0 {
		return ""
	}
	first := printedSurname(authors[0])
	if first == "" {
		return ""
	}
	n := len(authors)
	if n > 1 && etAl(authors[n-1]) {
		n = 3 // "A, B, et al." cites as "A et al."
	}
	switch n {
	case 1:
		return first + ", " + strconv.Itoa(year)
	case 2:
		if second := printedSurname(authors[1]); second != "" {
			return first + " and " + second + ", " + strconv.Itoa(year)
		}
	}
	return first + " et al., " + strconv.Itoa(year)
}

// etAl reports whether an author list's last name is "et al." or
// "others" ("and 40 others").
func etAl(s string) bool {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), "."))
	s = strings.TrimPrefix(s, "and ")
	if n := strings.TrimLeft(s, "0123456789"); n != s {
		s = strings.TrimSpace(n)
	}
	return s == "et al" || s == "others" || s == "et. al"
}

// printedSurname is the family name of a printed author as printed:
// "Vaswani, A." and "Ashish Vaswani" give "Vaswani", "van der Maaten, L."
// gives "van der Maaten", "Aad G" gives "Aad"; a collaboration is cited
// by its name: "The ATLAS Collaboration" gives "ATLAS Collaboration".
func printedSurname(name string) string {
	name = strings.TrimSpace(name)
	if collaboration().MatchString(name) {
		return strings.TrimPrefix(name, "The ")
	}
	if i := strings.IndexByte(name, ','); i > 0 {
		return strings.TrimSpace(name[:i])
	}
	f := dropInitialsAfter(strings.Fields(name))
	for len(f) > 1 && strings.TrimSuffix(f[len(f)-1], ".") == "Jr" {
		f = f[:len(f)-1]
	}
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], ".,;")
}

// Citation markers in body text.
var (
	// bracketCite is a bracketed citation: "[12]", "[3–5, 12]", "[Vas17]",
	// "[Vas17, BHK19]".
	bracketCite = lazyRegexp(`\[([^\[\]\n]{1,200})\]`)
	numPart     = lazyRegexp(`^(\d{1,4})$`)
	rangePart   = lazyRegexp(`^(\d{1,4})\s*[–—‐-]\s*(\d{1,4})$`)
	alphaPart   = lazyRegexp(`^\p{L}[\p{L}+\-'’]{0,10}\d{2,4}[a-z]?$`)
	// superCite is a superscript citation as extracted text shows it: the
	// numbers glued to the word or punctuation before them ("networks12,13
	// are").
	superCite = lazyRegexp(`[\p{Ll}\)\]\.,;:]((?:\d{1,3})(?:\s?[,–-]\s?\d{1,3}){0,8})(?:\s|$)`)
	// yearCite is a year an author–year citation ends with ("2017",
	// "2017a").
	yearCite = lazyRegexp(`\b((?:1[89]|20)[0-9]{2})([a-z])?\b`)
	// capWord is a capitalised word: a surname candidate.
	capWord = lazyRegexp(`\p{Lu}[\p{L}\p{M}'’\-]+`)
)

// citeContexts finds, for each entry of a paper's reference list, up to
// maxContexts sentences of its body (the text before the reference
// section) that cite it: by number ("[12]", "[3–5, 12]", superscripts),
// by label ("[Vas17]") or by author and year ("Vaswani et al. (2017)",
// "(Vaswani et al., 2017; Ba et al., 2016)"). text is the paper's pages
// separated by form feeds. A label that names two entries cites neither.
// The result has one list per entry; nil when none is cited.
func citeContexts(text string, es []Entry, style markStyle) [][]Context {
	if len(es) == 0 {
		return nil
	}
	body := bodyText(text)
	byLabel := map[string]int{} // folded label → entry, -1 when repeated
	byAuthor := map[string]int{}
	note := func(m map[string]int, k string, i int) {
		if k == "" {
			return
		}
		if _, ok := m[k]; ok {
			m[k] = -1
			return
		}
		m[k] = i
	}
	for i, e := range es {
		switch style {
		case styleBracket, styleDot, styleBare, styleLabel:
			note(byLabel, strings.ToLower(e.Label), i)
		}
		if style == styleAuthorYear || style == styleLabel {
			if len(e.Authors) > 0 && e.Year > 0 {
				note(byAuthor, surname(e.Authors[0])+"|"+strconv.Itoa(e.Year), i)
				if len(e.Authors) == 2 {
					// Two works of one first author and year are told
					// apart by the second author, printed with a pair.
					note(byAuthor, surname(e.Authors[0])+"&"+surname(e.Authors[1])+"|"+strconv.Itoa(e.Year), i)
				}
			}
		}
	}
	out := make([][]Context, len(es))
	f := finder{out: out, left: maxMarkers}
	pages := readPages(body)
	numbered := style == styleBracket || style == styleDot || style == styleBare
	bracketed := 0
	for pi, pg := range pages {
		if f.left <= 0 {
			break
		}
		if len(byLabel) > 0 {
			for _, m := range bracketCite().FindAllStringSubmatchIndex(pg.text, -1) {
				if m[0] < pg.from {
					continue // the previous page's: read with it
				}
				if m[0] >= pg.own {
					break // the next page's: read with it
				}
				if f.left--; f.left <= 0 {
					break
				}
				for _, part := range strings.FieldsFunc(pg.text[m[2]:m[3]], func(r rune) bool { return r == ',' || r == ';' }) {
					part = strings.TrimSpace(part)
					switch {
					case numPart().MatchString(part):
						if numbered {
							bracketed++
							f.add(pg, m[0], byLabel, part)
						}
					case rangePart().MatchString(part):
						if !numbered {
							continue
						}
						sm := rangePart().FindStringSubmatch(part)
						a, _ := strconv.Atoi(sm[1])
						b, _ := strconv.Atoi(sm[2])
						if b < a || b-a >= maxRange {
							continue
						}
						bracketed++
						for n := a; n <= b; n++ {
							k := strconv.Itoa(n)
							f.add(pg, m[0], byLabel, k)
						}
					case alphaPart().MatchString(part):
						if style == styleLabel {
							f.add(pg, m[0], byLabel, part)
						}
					}
				}
			}
		}
		if len(byAuthor) > 0 {
			f.authorYear(pg, byAuthor)
		}
		if numbered && bracketed == 0 && pi == len(pages)-1 {
			// No bracketed number in the whole body: the paper may cite
			// with superscripts. Read them, from the first page again.
			for _, pg := range pages {
				f.superscripts(pg, byLabel, len(es))
			}
		}
	}
	for _, l := range out {
		if len(l) > 0 {
			return out
		}
	}
	return nil
}

// finder collects the contexts of one paper.
type finder struct {
	out  [][]Context
	left int // markers still to read
}

// add records the sentence of pg holding offset at as a context of the
// entry label k names in byLabel.
func (f *finder) add(pg *page, at int, byLabel map[string]int, k string) {
	i, ok := byLabel[strings.ToLower(k)]
	if !ok || i < 0 {
		return
	}
	f.addEntry(pg, at, i)
}

// addEntry records the sentence of pg holding offset at as a context of
// entry i, unless it has its maxContexts or that sentence already.
func (f *finder) addEntry(pg *page, at, i int) {
	if len(f.out[i]) >= maxContexts {
		return
	}
	s := pg.sentence(at)
	if s == "" {
		return
	}
	for _, c := range f.out[i] {
		if c.Text == s {
			return
		}
	}
	f.out[i] = append(f.out[i], Context{Page: pg.n, Text: s})
}

// authorYear finds author–year citations on pg: a year preceded, within
// the same citation, by the surname of the first author of an entry of
// that year.
func (f *finder) authorYear(pg *page, byAuthor map[string]int) {
	prev := 0
	for _, m := range yearCite().FindAllStringSubmatchIndex(pg.text, -1) {
		if f.left--; f.left <= 0 {
			return
		}
		year := pg.text[m[2]:m[3]]
		from := max(prev, m[0]-80)
		prev = m[1]
		win := pg.text[from:m[0]]
		// A citation of several works: only the part after the last
		// separator belongs to this year.
		if j := strings.LastIndexAny(win, ";)]"); j >= 0 {
			win, from = win[j+1:], from+j+1
		}
		words := capWord().FindAllStringIndex(win, -1)
		for w := len(words) - 1; w >= 0 && w >= len(words)-4; w-- {
			at := from + words[w][0]
			if at >= pg.own || at < pg.from {
				break // all on the next or the previous page: read with it
			}
			k := surname(win[words[w][0]:words[w][1]]) + "|" + year
			if i, ok := byAuthor[k]; ok {
				// "Whitaker and Costa, 2018" beside "Whitaker and
				// Whitaker, 2018": the pair names one of them.
				pair := func(a, b int) {
					if a < 0 || b >= len(words) || i >= 0 {
						return
					}
					if and := strings.TrimSpace(win[words[a][1]:words[b][0]]); and == "and" || and == "&" {
						if j, ok := byAuthor[surname(win[words[a][0]:words[a][1]])+"&"+surname(win[words[b][0]:words[b][1]])+"|"+year]; ok && j >= 0 {
							i, at = j, from+words[a][0]
						}
					}
				}
				pair(w, w+1)
				pair(w-1, w)
				if i >= 0 {
					// The citation starts at the surname, on this page
					// even when its year is on the next.
					f.addEntry(pg, at, i)
				}
				break
			}
		}
	}
}

// superscripts finds superscript citations on pg: numbers glued to the
// word before them, each at most the number of entries.
func (f *finder) superscripts(pg *page, byLabel map[string]int, n int) {
	for _, m := range superCite().FindAllStringSubmatchIndex(pg.text, -1) {
		if m[2] < pg.from {
			continue // the previous page's: read with it
		}
		if m[2] >= pg.own {
			return
		}
		if f.left--; f.left <= 0 {
			return
		}
		if !superWord(pg.text[:m[2]]) {
			continue
		}
		for _, part := range strings.FieldsFunc(pg.text[m[2]:m[3]], func(r rune) bool { return r == ',' || r == ' ' }) {
			a, b := part, part
			if i := strings.IndexAny(part, "–-"); i > 0 {
				a, b = part[:i], strings.TrimLeft(part[i:], "–-")
			}
			x, err1 := strconv.Atoi(a)
			y, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || x < 1 || y > n || y < x || y-x >= maxRange {
				continue
			}
			for k := x; k <= y; k++ {
				f.add(pg, m[2], byLabel, strconv.Itoa(k))
			}
		}
	}
}

// superWord reports whether the text before a superscript candidate ends
// with a plain word (three letters or more, none a capital but the first,
// no digit: not "v2", "ResNet50", "L2"), then at most one punctuation mark.
func superWord(before string) bool {
	before = strings.TrimRight(before, ".,;:)]")
	i := strings.LastIndexAny(before, " (")
	w := before[i+1:]
	if utf8.RuneCountInString(w) < 3 {
		return false
	}
	for j, r := range w {
		if !unicode.IsLetter(r) || j > 0 && unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// bodyText returns the part of a paper's text before its last reference
// heading (the whole text when it has none), at most maxBody bytes.
func bodyText(text string) string {
	end := len(text)
	off := 0
	lines := strings.SplitAfter(text, "\n")
	plain := make([]string, len(lines))
	for i, l := range lines {
		plain[i] = strings.TrimRight(l, "\n")
	}
	for i, l := range lines {
		if headingAt(plain, i) {
			end = off
		}
		off += len(l)
	}
	body := text[:end]
	if len(body) > maxBody {
		body = body[:maxBody]
	}
	return body
}

// page is one page of body text, its lines joined, with the offsets of
// its sentences.
type page struct {
	n    int
	text string
	from int // text[:from] is the previous page's unfinished last sentence
	own  int // text[from:own] is the page's; the rest is the next page's start
	// tail is the page's own unfinished last sentence, which the next
	// page reads before its own text; "" when the page ends a sentence.
	tail string

	starts []int // offsets where sentences start, ascending, starts[0] == 0
}

// maxTail bounds the bytes of a page's last sentence read again with the
// next page: twice what a context keeps before its marker.
const maxTail = 8 * maxContextRunes

// readPages splits body text (pages separated by form feeds) into the
// pages the finder reads. The lines that head or foot three pages or more
// (running heads, journal feet, page numbers; see pageFurniture) are
// dropped at each page's edges first, so that a sentence the page break
// cuts reads on over them: a page holds the previous page's unfinished
// last sentence before its own text, and the next page's first lines
// after it.
func readPages(body string) []*page {
	raws := strings.Split(body, "\f")
	furniture := pageFurniture(strings.Split(body, "\n"))
	for i, raw := range raws {
		raws[i] = dropFurniture(raw, furniture)
	}
	pages := make([]*page, len(raws))
	prev := ""
	for i, raw := range raws {
		if !continues(raw) {
			prev = ""
		}
		pages[i] = newPage(i+1, prev, raw, nextPage(raws, i))
		prev = pages[i].tail
		if footnoteEnd(raw) {
			prev = "" // the body's last sentence is not what ends the page
		}
	}
	return pages
}

// footnoteEnd reports whether a page's last paragraph is a footnote: it
// opens with a footnote mark ("∗", "†", "‡", "§", "¶", "*").
func footnoteEnd(raw string) bool {
	raw = strings.TrimRight(raw, " \t\r\n")
	last := raw
	if i := strings.LastIndex(raw, "\n\n"); i >= 0 {
		last = raw[i+2:]
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(last))
	return strings.ContainsRune("∗†‡§¶*", r)
}

// continues reports whether a page's text opens as the rest of a sentence
// would: with a word in lower case or a parenthesis, not with a capital, a
// heading's number, a mark or a bracketed label ("[25] A. Author…").
func continues(raw string) bool {
	t := strings.TrimLeft(raw, " \t\r\n")
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsLower(r) || r == '('
}

// sideStamp is the identifier arXiv prints down the side of a preprint's
// first page, which the text layer puts at the page's start or end:
// "arXiv:1706.03762v5 [cs.CL] 6 Dec 2017".
var sideStamp = lazyRegexp(`^arXiv:\S+\s*\[[a-zA-Z.-]+\]\s+\d{1,2}\s+\p{L}{3}\s+\d{4}$`)

// dropFurniture blanks, among a page's first and last two lines that are
// not blank, the lines of furniture and arXiv's side stamp, and a page
// number that opens it.
func dropFurniture(raw string, furniture map[string]bool) string {
	lines := strings.Split(raw, "\n")
	var edge []int
	for i := 0; i < len(lines) && len(edge) < 2; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			edge = append(edge, i)
		}
	}
	if len(edge) > 0 && pageNumber().MatchString(strings.TrimSpace(lines[edge[0]])) {
		lines[edge[0]] = ""
	}
	for i, n := len(lines)-1, 0; i >= 0 && n < 2; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			edge = append(edge, i)
			n++
		}
	}
	for _, i := range edge {
		if t := strings.TrimSpace(lines[i]); furniture[t] || sideStamp().MatchString(t) {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// newPage joins the lines of one page's text (undoing hyphenation at line
// ends) and finds its sentences.
//
// A sentence may run on from the previous page and on to the next: prev
// (the previous page's unfinished last sentence, see page.tail) is joined
// before the page's own text, and next (the next page's first lines, see
// nextPage) after it, without the page number that ends it, so that a
// citation or a sentence cut by the page break is read whole; only
// markers that start on the page are its own.
func newPage(n int, prev, raw, next string) *page {
	var b strings.Builder
	b.Grow(len(prev) + len(raw) + len(next))
	lines := trimPageNumber(strings.Split(raw, "\n"))
	if prev != "" {
		lines = append([]string{prev, "\x01"}, lines...)
	}
	own, from := -1, 0
	head := ""
	if next != "" {
		lines = append(lines, "\x00")
		lines = append(lines, strings.Split(next, "\n")...)
	}
	var breaks []int // where a heading or a paragraph's last line ends
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "\x00" {
			own = b.Len()
			head = b.String()
			continue
		}
		if l == "\x01" {
			from = b.Len()
			if from > 0 {
				from++ // the space that joins the page's first line
			}
			continue
		}
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			s := b.String()
			hyphen := i > 0 && strings.HasSuffix(s, "-") && len(s) > 1 && unicode.IsLetter(rune(s[len(s)-2]))
			switch {
			case hyphen && startsLower(l):
				b.Reset()
				b.WriteString(s[:len(s)-1])
			case hyphen && startsUpper(l) && !startsUpper(secondRune(l)):
				// A compound broken at its own hyphen: "Al-" + "Rashid"
				// (not a running head in capitals after it).
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
		if headingLine(l) {
			// What follows a heading (or a title) starts a sentence.
			breaks = append(breaks, b.Len()+1)
		}
	}
	pg := &page{n: n, text: b.String(), starts: []int{0}, from: from}
	pg.own = len(pg.text)
	if own >= 0 {
		pg.own = own
	} else {
		head = pg.text
	}
	pg.from = min(pg.from, pg.own)
	for _, k := range breaks {
		if k < len(pg.text) {
			pg.starts = append(pg.starts, k)
		}
	}
	t := pg.text
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		j := i + 1
		// Closing quotes, brackets and superscript numbers stay with the
		// sentence.
		for j < len(t) && strings.IndexByte(`"')]’”`, t[j]) >= 0 {
			j++
		}
		for j < len(t) && t[j] >= '0' && t[j] <= '9' && j-i < 8 {
			j++
		}
		if j >= len(t) || t[j] != ' ' {
			continue
		}
		k := j + 1
		if k >= len(t) {
			break
		}
		r, _ := utf8.DecodeRuneInString(t[k:])
		if !unicode.IsUpper(r) && r != '[' && r != '(' {
			continue
		}
		if c == '.' && abbrevBefore(t, i) {
			continue
		}
		pg.starts = append(pg.starts, k)
	}
	slices.Sort(pg.starts)
	pg.starts = slices.Compact(pg.starts)
	pg.tail = tailOf(head, pg.starts)
	return pg
}

// tailOf returns the unfinished last sentence of a page's own text head
// (its sentences start at starts): "" when head ends a sentence or a
// heading, the sentence's last maxTail bytes when it is longer.
func tailOf(head string, starts []int) string {
	t := strings.TrimRight(head, " ")
	t = strings.TrimRight(t, `"')]’”0123456789`)
	if t == "" || strings.ContainsAny(t[len(t)-1:], ".?!:") || slices.Contains(starts, len(head)+1) {
		return "" // a sentence or a heading ends the page
	}
	i, _ := slices.BinarySearch(starts, len(head))
	if i == 0 {
		return ""
	}
	start := starts[i-1]
	if start >= len(head) {
		return ""
	}
	if len(head)-start > maxTail {
		start = len(head) - maxTail
		for start < len(head) && !utf8.RuneStart(head[start]) {
			start++
		}
	}
	return head[start:]
}

// sectionNumber opens a numbered heading: "1 ", "2.3 ", "A.1 ", "IV. ".
var sectionNumber = lazyRegexp(`^(?:\d{1,2}(?:\.\d{1,2})*\.?|[A-H](?:\.\d{1,2})+|[IVX]{1,5}\.)\s+\p{Lu}`)

// headingLine reports whether a line of body text is a heading: short,
// ending no sentence, and numbered or in title case.
func headingLine(l string) bool {
	if utf8.RuneCountInString(l) > 60 || strings.ContainsAny(l[len(l)-1:], ".,;:-([") {
		return false
	}
	if sectionNumber().MatchString(l) {
		return true
	}
	for _, w := range strings.Fields(l) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && len(w) > 3 {
			return false // a word of a sentence, not of a title
		}
	}
	return true
}

// secondRune returns the second rune of s as a string, or "".
func secondRune(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	r, m := utf8.DecodeRuneInString(s[n:])
	if m == 0 {
		return ""
	}
	return string(r)
}

// trimPageNumber drops the blank lines and the page number that end a
// page's lines.
func trimPageNumber(lines []string) []string {
	for len(lines) > 0 && (strings.TrimSpace(lines[len(lines)-1]) == "" || pageNumber().MatchString(strings.TrimSpace(lines[len(lines)-1]))) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// nextPage returns the first lines of the page after pages[i] (up to the
// end of the first sentence that ends there, at most 400 bytes), or "".
func nextPage(pages []string, i int) string {
	if i+1 >= len(pages) {
		return ""
	}
	next := strings.TrimLeft(pages[i+1], " \t\r\n")
	if sectionNumber().MatchString(next) {
		return "" // a numbered heading opens the next page: nothing runs on
	}
	if len(next) > 400 {
		cut := 400
		for cut > 0 && !utf8.RuneStart(next[cut]) {
			cut--
		}
		next = next[:cut]
	}
	if j := strings.Index(next, ". "); j >= 0 {
		next = next[:j+1]
	}
	return next
}

// abbrevBefore reports whether the full stop at t[i] ends an abbreviation
// or an initial rather than a sentence.
func abbrevBefore(t string, i int) bool {
	j := i
	for j > 0 && t[j-1] != ' ' && t[j-1] != '(' {
		j--
	}
	w := t[j:i]
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsUpper(r) // an initial
	}
	return sentenceAbbrev[w] || ctxAbbrev[strings.ToLower(w)]
}

// ctxAbbrev are abbreviations a body's sentences hold before a citation.
var ctxAbbrev = map[string]bool{"al": true, "e.g": true, "i.e": true, "cf": true, "fig": true, "figs": true, "eq": true,
	"eqs": true, "sec": true, "secs": true, "ref": true, "refs": true, "resp": true, "approx": true, "vs": true, "etc": true, "tab": true}

// sentence returns the sentence of the page holding offset at, one line,
// at most maxContextRunes runes (a longer one is cut around at).
func (pg *page) sentence(at int) string {
	i, found := slices.BinarySearch(pg.starts, at)
	if !found {
		i--
	}
	start, end := pg.starts[i], len(pg.text)
	if i+1 < len(pg.starts) {
		end = pg.starts[i+1]
	}
	// A long sentence is cut to a window around the marker: half the
	// context before it at most (in bytes, four per rune at most).
	cut := false
	if from := at - 2*maxContextRunes; from > start {
		for from > start && !utf8.RuneStart(pg.text[from]) {
			from--
		}
		start, cut = from, true
	}
	if to := at + 4*maxContextRunes; to < end {
		for to > at && !utf8.RuneStart(pg.text[to]) {
			to--
		}
		end = to
	}
	s := pg.text[start:end]
	if r := []rune(s); len(r) > maxContextRunes {
		rel := utf8.RuneCountInString(pg.text[start:at])
		from := max(0, min(rel-maxContextRunes/2, len(r)-maxContextRunes))
		s, cut = string(r[from:]), cut || from > 0
	}
	if cut {
		s = "…" + s
	}
	s = textnorm.Line(s)
	if utf8.RuneCountInString(s) > maxContextRunes {
		s, _ = textnorm.Truncate(s, maxContextRunes)
	}
	return s
}

// citation is how a library paper cites another: the label and sentences
// of its reference to it, and its PDF the sentences are from.
type citation struct {
	label    string
	contexts []Context
	pdf      string
}

// noteCite records how the library paper p cites the library paper cited,
// by its reference r (the first such reference counts).
func (g *graph) noteCite(cited string, p *catalog.Paper, r ref) {
	if r.label == "" && len(r.contexts) == 0 {
		return
	}
	m := g.cites[cited]
	if m == nil {
		m = map[string]citation{}
		g.cites[cited] = m
	}
	if _, ok := m[p.Ref]; !ok {
		m[p.Ref] = citation{label: r.label, contexts: r.contexts, pdf: p.PDF}
	}
}

// CitingSentences is Entries with each entry's Contexts: up to two
// sentences of the body of text (the paper's pages separated by form
// feeds) that cite it, as paper_relations gives them.
func CitingSentences(text string) []Entry {
	es, style := entries(text)
	for i, cs := range citeContexts(text, es, style) {
		es[i].Contexts = cs
	}
	return es
}
