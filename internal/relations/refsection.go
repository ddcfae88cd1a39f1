package relations

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// headingTail matches a reference heading at the end of a line: small
// capitals come out of PDFs spaced ("R EFERENCES"), and some layouts glue
// the heading to the text before it ("error (%)References"); headingAt
// accepts a glued one only when an entry follows.
var headingTail = lazyRegexp(`(?:^|[^\p{L}])(R\s?EFERENCES|References|REFERENCES|Bibliography|BIBLIOGRAPHY|B\s?IBLIOGRAPHY|Literature Cited|LITERATURE CITED|Works Cited|References and Notes)\s*:?$`)

// Entry markers at the start of a line: "[12]", "12.", "12 ".
var (
	bracketMark = lazyRegexp(`^\[(\d{1,3})\]\s*`)
	dotMark     = lazyRegexp(`^(\d{1,3})\.\s+`)
	bareMark    = lazyRegexp(`^(\d{1,3})\s+\p{Lu}`)
	// labelMark is a bracketed label with a letter in it, as alpha and
	// author–year styles print them: "[Knu84]", "[ABC+19]", "[Adeyemi
	// and Lang, 2024]". Words that open a line of an entry in brackets
	// are not labels.
	labelMark = lazyRegexp(`^\[([^\[\]]{0,60}\p{L}[^\[\]]{0,60})\]\s*\S`)
	notLabel  = lazyRegexp(`(?i)^(?:online|accessed\b.*|available\b.*|in press|to appear|sic|with \w+)$`)
)

// authorStart matches the start of an author–year entry: "Surname, I.",
// "Surname, Firstname", "van Surname, I.", "SURNAME, I.",
// "Firstname Surname," / "Firstname I. Surname," or "I. J. Surname and",
// "Surname, I and" (initials without full stops), or one author "I. J.
// Surname. Title" (abbreviated styles; a journal's "J. Mach. Learn." is
// no author, since a title word is not an abbreviation).
var authorStart = lazyRegexp(`^(?:\p{Lu}\.\s?(?:-?\p{Lu}\.\s?)*)\s?\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+(?:,|\sand\s)|^(?:\p{Lu}\.\s?(?:-?\p{Lu}\.\s?)*)\s?\p{Lu}\p{Ll}[\p{L}\p{M}\p{Sk}'’\-]+\.\s\p{Lu}[\p{L}\p{M}'’\-]*[\s,:]|^(?:(?:van|von|de|der|den|la|le|da|di|du|del)\s+)*\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+(?:\s\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+)?,\s*(?:\p{Lu}\.|\p{Lu}[\p{Ll}\p{M}\p{Sk}]+|\p{Lu}\p{Lu}|\p{Lu}\s(?:\p{Lu}\s)?(?:and|&)\s)|^\p{Lu}[\p{Ll}\p{M}\p{Sk}\-]+(?:\s\p{Lu}\.|\s\p{Lu}[\p{Ll}\p{M}\p{Sk}]+)*\s(?:(?:van|von|de|der|den|la|le|da|di|du|del)\s)*\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+(?:,|\sand\s|\.\s)`)

// statusEnd matches an entry that ends with its publication status instead
// of a year: "Natural neural networks. (unpublished)." is finished.
var statusEnd = lazyRegexp(`(?i)\((?:unpublished|in press|to appear|submitted|forthcoming|in preparation)\)\.?$`)

// midEntry is an author–year entry starting after a full stop inside a
// line: "margin. Bengio, Yoshua and Glorot, Xavier. Understanding".
var midEntry = lazyRegexp(`\.\s+\p{Lu}[\p{L}\p{M}'’\-]+,\s(?:\p{Lu}\.|\p{Lu}[\p{Ll}]+)(?:,|\sand\s)`)

// appendixStart ends a reference section: an appendix or supplementary
// heading, or a lettered section heading ("A. Object Detection Baselines").
var appendixStart = lazyRegexp(`^(?:(?:Appendix|APPENDIX|Appendices|APPENDICES|Supplementary|SUPPLEMENTARY)\b|[A-H](?:\.[0-9])?\.?\s+\p{Lu}[\p{L} \-]{3,60}$)`)

// pageNumber is a line that is only a page number or a page label.
var pageNumber = lazyRegexp(`^(?:\d{1,4}|[ivxlc]{1,6}|Page \d+(?: of \d+)?|\d+\s*/\s*\d+)$`)

// Caps on the work per paper: at most maxEntries entries are split and
// parsed, each of at most maxEntryLines lines and maxEntryRunes runes.
const (
	maxEntries    = 2000
	maxEntryLines = 12
	maxEntryRunes = 2000
)

// headingAt reports whether line i of lines is a reference heading: a line
// that is only the heading, or ends with it and is followed by the first
// entry of a list.
func headingAt(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	if t == "" || len(t) > 200 || !headingWord(t) {
		return false
	}
	if len(t) <= 40 && refHeading().MatchString(t) {
		return true
	}
	if len(t) <= 40 {
		squeezed := strings.ToUpper(strings.ReplaceAll(t, " ", ""))
		squeezed = strings.TrimLeft(squeezed, "0123456789.IVX ")
		if squeezed == "REFERENCES" || squeezed == "BIBLIOGRAPHY" {
			return true
		}
	}
	m := headingTail().FindStringSubmatch(t)
	if m == nil {
		return false
	}
	// Glued to other text: only when an entry follows, at the start of
	// the next line or, when the page's columns were read across, after a
	// full stop within the next lines.
	seen := 0
	for _, next := range lines[i+1 : min(len(lines), i+16)] {
		n := strings.TrimSpace(next)
		if n == "" {
			continue
		}
		if seen == 0 && (bracketMark().MatchString(n) || dotMark().MatchString(n) || authorStart().MatchString(n)) {
			return true
		}
		if m[1] == "References" && midEntry().MatchString(n) {
			return true
		}
		seen++
	}
	return false
}

// headingWord is a quick filter for headingAt: whether t holds a word a
// reference heading is made of.
func headingWord(t string) bool {
	for _, w := range []string{"EFERENCES", "eferences", "IBLIOGRAPHY", "ibliography", "Cited", "CITED", "参"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// sectionLines returns the lines of the reference section of text: after
// its last reference heading, without page furniture (page numbers,
// running heads and feet repeated across pages, form feeds). found is
// false when there is no heading; the lines are then the last third of
// the text.
func sectionLines(text string) (lines []string, found bool) {
	if len(text) > maxRefText*4 {
		// The end holds the references; start on a line boundary.
		text = text[len(text)-maxRefText*4:]
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	// A page's last line may run into the form feed.
	all := strings.Split(strings.ReplaceAll(text, "\f", "\n\f"), "\n")
	furniture := pageFurniture(all)
	start := -1
	for i := range all {
		if headingAt(all, i) {
			start = i + 1
		}
	}
	found = start >= 0
	if !found {
		start = len(all) - len(all)/3
	}
	size := 0
	for _, l := range all[start:] {
		l = strings.TrimRight(strings.ReplaceAll(l, "\f", ""), " \t\r")
		t := strings.TrimSpace(l)
		if furniture[t] || pageNumber().MatchString(t) {
			continue
		}
		size += len(l) + 1
		if size > maxRefText {
			break
		}
		lines = append(lines, t)
	}
	return lines, found
}

// pageFurniture returns the lines that head or foot three or more pages
// with the same text once digits are ignored: running heads, journal feet.
// A line ending with a full stop is kept: it is more likely the end of an
// entry ("In CVPR, 2015.") that happens to open or close a page.
func pageFurniture(lines []string) map[string]bool {
	count := map[string]int{}
	var edge []string
	var page []string
	flush := func() {
		var nonBlank []string
		for _, l := range page {
			if t := strings.TrimSpace(l); t != "" {
				nonBlank = append(nonBlank, t)
			}
		}
		n := len(nonBlank)
		for i, t := range nonBlank {
			if i < 2 || i >= n-2 {
				edge = append(edge, t)
				count[stripDigits(t)]++
			}
		}
		page = page[:0]
	}
	for _, l := range lines {
		if strings.Contains(l, "\f") {
			parts := strings.Split(l, "\f")
			for j, p := range parts {
				if j > 0 {
					flush()
				}
				page = append(page, p)
			}
			continue
		}
		page = append(page, l)
	}
	flush()
	out := map[string]bool{}
	for _, t := range edge {
		if count[stripDigits(t)] >= 3 && len(t) < 160 && !strings.HasSuffix(t, ".") && !bracketMark().MatchString(t) && !dotMark().MatchString(t) {
			out[t] = true
		}
	}
	return out
}

// stripDigits returns s without its digits (page numbers, volumes).
func stripDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return r
	}, s)
}

// markStyle is how a bibliography marks its entries.
type markStyle int

const (
	styleAuthorYear markStyle = iota
	styleBracket
	styleDot
	styleBare
	styleLabel // bracketed labels that are not numbers
)

// labelOf returns the text after the label that starts line t, and
// whether one does.
func labelOf(t string) (rest string, ok bool) {
	m := labelMark().FindStringSubmatchIndex(t)
	if m == nil || notLabel().MatchString(strings.TrimSpace(t[m[2]:m[3]])) {
		return t, false
	}
	return strings.TrimLeft(t[m[3]+1:], " "), true
}

// markOf returns the entry number that starts line t in style s, or -1.
func markOf(s markStyle, t string) (n int, rest string) {
	var re *regexp.Regexp
	switch s {
	case styleBracket:
		re = bracketMark()
	case styleDot:
		re = dotMark()
	case styleBare:
		re = bareMark()
	default:
		return -1, t
	}
	m := re.FindStringSubmatchIndex(t)
	if m == nil {
		return -1, t
	}
	n, _ = strconv.Atoi(t[m[2]:m[3]])
	if s == styleBare {
		return n, t[m[3]:]
	}
	return n, t[m[1]:]
}

// detectStyle picks the marking style whose markers count up from 1 the
// furthest in lines; a list of one entry counts when its marker opens the
// section.
func detectStyle(lines []string) markStyle {
	best, bestRun := styleAuthorYear, 1
	first := ""
	for _, l := range lines {
		if l != "" {
			first = l
			break
		}
	}
	for _, s := range []markStyle{styleBracket, styleDot, styleBare} {
		next := 1
		for _, l := range lines {
			if n, _ := markOf(s, l); n == next {
				next++
			}
		}
		if n, _ := markOf(s, first); next-1 > bestRun || (next == 2 && n == 1 && best == styleAuthorYear) {
			best, bestRun = s, next-1
		}
	}
	// Labels do not count up: they win when more lines open with one
	// than numbers run, and the section opens with one.
	labels := 0
	for _, l := range lines {
		if _, ok := labelOf(l); ok {
			labels++
		}
	}
	if _, ok := labelOf(first); ok && labels > bestRun {
		best = styleLabel
	}
	return best
}

// authorsAndYear reports an entry begun with its authors and year and
// nothing after them: "Wei, L. and Solberg, I. (2022)." or "Jane Doe
// and Rui Silva. 2007."
func authorsAndYear(s string) bool {
	for _, re := range []func() *regexp.Regexp{parenYear, dotYear} {
		if m := re().FindStringSubmatchIndex(s + " "); m != nil && m[1] >= len(s) && looksLikeAuthors(s[m[2]:m[3]]) {
			return true
		}
	}
	return false
}

// splitLabelled splits reference-section lines into entries, each one
// string with its lines joined (hyphenated breaks undone), and returns
// each entry's label as printed ("12" for "[12]", "12." and "12 "; "Vas17"
// for "[Vas17]"; "" for an author–year entry) and the list's marking
// style. Numbered entries start at the next number in sequence;
// author–year entries at a line that begins with an author after a line
// that ended a sentence, or after a blank line. An entry is cut at
// maxEntryLines lines: what follows it before the next entry is not part
// of the bibliography (a float, an appendix). The section ends at an
// appendix heading.
func splitLabelled(lines []string, headed bool) (out, labels []string, style markStyle) {
	style = detectStyle(lines)
	if style == styleAuthorYear && !headed {
		return nil, nil, style
	}
	var cur []string
	curLabel := ""
	names := 0 // the leading lines of cur that are its author list's only
	next := 1
	emit := func() {
		if len(cur) > 0 {
			out = append(out, shorten(joinLines(cur), maxEntryRunes))
			labels = append(labels, curLabel)
		}
		cur, curLabel = nil, ""
	}
	prevEnds, blank := true, true
	for _, t := range lines {
		if len(out) >= maxEntries {
			break
		}
		if t == "" {
			blank = true
			continue
		}
		if len(out) >= 3 && appendixStart().MatchString(t) && (style != styleAuthorYear || !authorStart().MatchString(t)) {
			break
		}
		start := false
		rest := t
		label := ""
		if style == styleLabel {
			var ok bool
			if rest, ok = labelOf(t); ok {
				start = true
				label = strings.TrimSpace(t[1:strings.IndexByte(t, ']')])
			} else if len(out) == 0 && len(cur) == 0 {
				continue // before the first entry
			}
		} else if style == styleAuthorYear {
			// An entry that has no year yet is not finished ("…, editor,
			// Title of the Book." then "Publisher, 1991."), unless it is
			// long already; "In Y. Bengio, editor" continues one. Nor is
			// one of its authors and year only ("Wei, L. and Solberg, I.
			// (2022)."), whose title in title case can read as names
			// ("Memory Slots and Gated Retrieval").
			// Nor is one whose lines so far are names only: a long author
			// list runs over several lines, a line of it ending with an
			// initial ("Aad, G. and Abbott, B.").
			start = (authorStart().MatchString(t) || collaboration().MatchString(t)) && (prevEnds || blank) && !strings.HasPrefix(t, "In ") &&
				(len(cur) == 0 || len(cur) >= 4 || yearRe().MatchString(strings.Join(cur, " ")) || statusEnd().MatchString(cur[len(cur)-1])) &&
				(len(cur) == 0 || !authorsAndYear(strings.Join(cur, " ")) && !nameRun(cur))
		} else {
			var n int
			n, rest = markOf(style, t)
			if n == next || (n > next && n <= next+2 && len(out) > 0) {
				start, next = true, n+1
				label = strconv.Itoa(n)
			} else if len(out) == 0 && len(cur) == 0 {
				continue // before the first entry
			}
		}
		blank = false
		if start {
			emit()
			cur, curLabel, names = []string{rest}, label, 0
		} else if len(cur) > 0 && len(cur)-names < maxEntryLines && len(cur) < maxAuthorLines {
			if names == len(cur)-1 && nameRun(cur) {
				names = len(cur) // the author list goes on: its lines do not count
			}
			cur = append(cur, t)
		} else if style == styleAuthorYear && len(cur) == 0 && len(out) == 0 {
			cur = []string{t}
		}
		last := t[len(t)-1]
		prevEnds = last == '.' || last == ')' || (last >= '0' && last <= '9') || last == '/'
	}
	emit()
	return out, labels, style
}

// maxAuthorLines bounds the lines of an entry whose author list alone
// runs past maxEntryLines (a collaboration's hundreds of names).
const maxAuthorLines = 4 * maxEntryLines

// collaboration opens an entry whose author is a collaboration or a
// consortium: "The ATLAS Collaboration", "CMS Collaboration,".
var collaboration = lazyRegexp(`^(?:The\s+)?(?:\p{Lu}[\p{L}\p{N}\-]*\s+){1,4}(?:Collaboration|Consortium)\b`)

// nameRun reports whether an entry's lines so far are an author list and
// nothing more: no year, no title yet.
func nameRun(cur []string) bool {
	s := strings.Join(cur, " ")
	return !yearRe().MatchString(s) && namesOnly(s)
}

// joinLines joins an entry's lines, undoing a word hyphenated across lines
// ("dependen-" + "cies") but keeping a hyphen before a capital or digit
// ("Encoder-" + "Decoder").
func joinLines(ls []string) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			prev := ls[i-1]
			if strings.HasSuffix(prev, "-") && len(prev) > 1 && unicode.IsLetter(rune(prev[len(prev)-2])) && startsLower(l) {
				s := b.String()
				b.Reset()
				b.WriteString(s[:len(s)-1])
			} else if !strings.HasSuffix(prev, "/") && !strings.HasSuffix(prev, "-") && !doiBreak(prev, l) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return oneLine(b.String())
}

func startsLower(s string) bool {
	for _, r := range s {
		return unicode.IsLower(r)
	}
	return false
}

// startsUpper reports whether s starts with an upper-case letter.
func startsUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// doiBreak reports whether a DOI was broken after prev's last character
// (the ACM and Springer break after a dot or hyphen, before digits).
func doiBreak(prev, next string) bool {
	i := strings.LastIndexByte(prev, ' ')
	last := prev[i+1:]
	return strings.Contains(last, "10.") && strings.Contains(last, "/") &&
		strings.ContainsAny(last[len(last)-1:], ".-_") && next != "" && next[0] >= '0' && next[0] <= '9'
}

// lazyRegexp compiles pattern on its first use. The package's expressions
// (Unicode classes, long alternations) take milliseconds to compile,
// which every process would otherwise pay at its start, before its first
// answer, whether it reads a reference list or not.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
