package relations

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Entry is one entry of a paper's reference section as parsed from its PDF
// text. Fields the entry does not show are empty.
type Entry struct {
	Raw     string   // the entry's text, lines joined, without its marker
	Authors []string // as printed: "Surname, I." or "I. Surname"
	Title   string
	Year    int
	Venue   string
	DOI     string // normalised
	ArXivID string // normalised, without version
	// Label is how the body cites the entry, as printed: its number
	// ("12"), its bracketed label ("Vas17"), or for an author–year list
	// the first author's surname and the year ("Vaswani et al., 2017");
	// "" when the entry shows neither.
	Label string
	// Contexts are the body's sentences that cite the entry (see
	// CitingSentences); Entries leaves them empty.
	Contexts []Context
}

// Entries finds the reference section of a paper's text (after its last
// reference heading: "References", "R EFERENCES", "Bibliography",
// "Literature Cited", numbered or not, even when glued to the line before
// it), splits it into entries ("[1]", "1." and "1" numbering in sequence,
// or author–year entries that start with an author's name) and parses each.
// It stops at an appendix. Without a heading, only a numbered list that
// counts up from 1 in the last third of the text is read.
func Entries(text string) []Entry {
	out, _ := entries(text)
	return out
}

// entries is Entries with the list's marking style.
func entries(text string) ([]Entry, markStyle) {
	lines, headed := sectionLines(text)
	raws, labels, style := splitLabelled(lines, headed)
	out := make([]Entry, 0, len(raws))
	for i, r := range raws {
		e := ParseEntry(r)
		e.Label = labels[i]
		if e.Label == "" {
			e.Label = authorYearLabel(e.Authors, e.Year)
		}
		out = append(out, e)
	}
	return out, style
}

var (
	urlRe     = lazyRegexp(`(?i)(?:https?://|www\.)\S+|\bdoi:\s*\S+|\b10\.[0-9]{4,9}/\S+`)
	yearRe    = lazyRegexp(`\b(1[89][0-9]{2}|20[0-9]{2})[a-z]?\b`)
	parenYear = lazyRegexp(`^(.{2,1000}?)\(\s*((?:1[89]|20)[0-9]{2})[a-z]?(?:,[^)]{0,40})?\s*\)[.,:]?\s*`)
	dotYear   = lazyRegexp(`^(.{2,1000}?[^0-9])[.,]\s+((?:1[89]|20)[0-9]{2})[a-z]?\.\s+`)
	quoted    = lazyRegexp(`“([^”]{4,400})”|"([^"]{4,400})"|‘([^’]{4,400})’|「([^」]{2,400})」`)
	// yearTail is a year printed at the end of a title's sentence.
	yearTail = lazyRegexp(`(?:,\s*|\s*\()(?:1[89]|20)[0-9]{2}[a-z]?\)?$|\s*\([^()]*(?:1[89]|20)[0-9]{2}[^()]*\)$`)
	// volTail is a volume number printed after a book's title.
	volTail = lazyRegexp(`,?\s*[Vv]ol\.\s*[0-9]+$`)
	// surnameInitial opens an author list written "Surname, I." (APA,
	// Nature, Springer, ACM small capitals).
	surnameInitial = lazyRegexp(`^(?:(?:van|von|de|der|den|la|le|da|di|du|del)\s+)*\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+(?:\s\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+)?,\s(?:\p{Lu}\.|\p{Lu}\p{Lu}?\s)`)
	// venueCue starts what follows a title when no full stop ends it.
	// An edition ("…, 2nd ed. Publisher") ends a book's title too.
	venueCue = lazyRegexp(`(?:,\s*|\.\s*|\s)(?:In:?\s|in:?\s+(?:Proc|Advances)|arXiv preprint|arXiv:?\s?[0-9]|CoRR\b|Technical report|Tech\. Rep|(?:[0-9]+(?:st|nd|rd|th)|[Ss]econd|[Tt]hird|[Ff]ourth|[Ff]ifth|[Rr]evised)\s[Ee]d(?:\.|ition\b))`)
)

// ParseEntry parses one reference entry: its identifiers, year, authors,
// title and venue. The title is the quoted part (IEEE), else the sentence
// after the year that follows the authors ("Authors (2019). Title." or
// "Authors. 2019. Title."), else the sentence after the author list.
func ParseEntry(raw string) Entry {
	e := Entry{Raw: raw}
	var m []int
	if strings.Contains(raw, "10.") {
		m = doiRe().FindStringIndex(raw)
	}
	if m != nil {
		// A DOI cut at a line end ("10.1109/CVPR." + words) has no digit
		// after its prefix: dropped.
		d := doiAt(raw, m[0], m[1])
		if raw[m[1]-1] != '.' || strings.ContainsAny(d[strings.IndexByte(d+"/", '/'):], "0123456789") {
			e.DOI, e.ArXivID = identifiers(d, "")
		}
	}
	lower := strings.ToLower(raw)
	hasArXiv := strings.Contains(lower, "arxiv") || strings.Contains(lower, "corr")
	for _, re := range []func() *regexp.Regexp{arxivNewRe, arxivOldRe, arxivURLRe, arxivCoRRRe} {
		re := re()
		if e.ArXivID != "" || !hasArXiv {
			break
		}
		if m := re.FindStringSubmatch(raw); m != nil && plausibleArXiv(m[1]) {
			e.ArXivID = cite.NormalizeArXiv(m[1])
			break
		}
	}
	// Links and identifiers go, the punctuation after them stays.
	s := raw
	if strings.Contains(lower, "10.") || strings.Contains(lower, "www.") || strings.Contains(lower, "http") || strings.Contains(lower, "doi:") {
		s = urlRe().ReplaceAllStringFunc(raw, func(u string) string {
			return " " + u[len(strings.TrimRight(u, ".,;:)]")):]
		})
	}
	s = strings.TrimSpace(s)
	var authors, rest string
	titled := false // e.Title is set (or known to be absent)
	q := quotedTitle(s)
	switch {
	case q != nil:
		authors = strings.TrimRight(strings.TrimSpace(s[:q[0]]), ",:，、")
		e.Title = cleanTitle(s[q[0]:q[1]])
		rest = s[q[1]:]
	default:
		// The year after the authors is followed by a title, not the end
		// of the entry (as in "Journal 88, 445 (1983).").
		if m := parenYear().FindStringSubmatchIndex(s); m != nil && looksLikeAuthors(s[m[2]:m[3]]) && hasWord(s[m[1]:], 3) {
			authors, rest = s[m[2]:m[3]], s[m[1]:]
			e.Year, _ = strconv.Atoi(s[m[4]:m[5]])
		} else if m := dotYear().FindStringSubmatchIndex(s); m != nil && looksLikeAuthors(s[m[2]:m[3]]) && hasWord(s[m[1]:], 3) {
			authors, rest = s[m[2]:m[3]], s[m[1]:]
			e.Year, _ = strconv.Atoi(s[m[4]:m[5]])
		} else if m := sfList().FindStringIndex(s); m != nil {
			// "Bengio, Yoshua and Glorot, Xavier. Title." (ICML).
			authors, rest = strings.TrimRight(s[:m[1]], " "), s[m[1]:]
			e.Authors = sfName().FindAllString(authors, 100)
		} else {
			end := authorsEnd(s)
			authors, rest = s[:end], strings.TrimLeft(s[end:], ". ")
			if i := strings.LastIndex(authors, ", "); i > 0 && journalAbbrev[strings.TrimSuffix(authors[i+2:], ".")] {
				// "R. P. Feynman, Phys. Rev. 94, 262 (1954)": no title.
				authors, rest, titled = authors[:i], authors[i+2:]+" "+rest, true
			} else if end >= len(s)-1 || !looksLikeAuthors(authors) {
				authors, rest = "", s
				if a, t, r, ok := commaAuthors(s); ok {
					authors, rest, titled = a, r, true
					e.Title = cleanTitle(t)
				}
			} else if i := strings.LastIndex(authors, ", "); i > 0 && titleLike(strings.TrimSuffix(authors[i+2:], ".")) {
				// "…, and N. D. Lawrence, Dataset Shift in Machine
				// Learning. MIT Press, 2009.": an unquoted book title
				// after the names and a comma.
				e.Title, authors, titled = cleanTitle(strings.TrimSuffix(authors[i+2:], ".")), authors[:i], true
			}
		}
		if !titled {
			var t string
			t, rest = firstSentence(rest)
			e.Title = cleanTitle(t)
		}
	}
	if e.Title == "" && !titled && authors != "" && !strings.ContainsAny(authors, ",&") && !hasInitial(authors) && !strings.Contains(authors, " and ") {
		// "Keras. https://keras.io" or "Alpha. arXiv:2001.00001": the one
		// sentence before links and identifiers is the title.
		e.Title, authors = cleanTitle(authors), ""
	}
	if e.Authors == nil {
		e.Authors = splitAuthors(authors)
	}
	// The venue is what follows the title: journal, proceedings, pages.
	if v := strings.Trim(oneLine(rest), " ,.;，．。"); v != "" {
		for _, p := range []string{"In: ", "In ", "in: ", "in "} {
			v = strings.TrimPrefix(v, p)
		}
		if strings.Count(v, ")") > strings.Count(v, "(") {
			v = strings.TrimRight(v, ")")
		}
		e.Venue, _ = textnorm.Truncate(v, 160)
	}
	if e.Year == 0 {
		// The last year printed, outside identifiers and links.
		if hasArXiv {
			s = arxivIDRe().ReplaceAllString(s, " ")
		}
		if ms := yearRe().FindAllStringSubmatch(s, -1); ms != nil {
			e.Year, _ = strconv.Atoi(ms[len(ms)-1][1])
		}
	}
	return e
}

// nameFiller reports a lower-case word that belongs in an author list: a
// conjunction, "et al." or a name particle.
func nameFiller(w string) bool {
	return w == "and" || w == "et" || w == "al." || w == "al" || particle[w]
}

// commaAuthors reads the physics style, where commas separate everything:
// "A. Einstein, B. Podolsky, and N. Rosen, Title words, Journal 47, 777
// (1935)." The author list is the leading run of name-like parts (initials
// and capitalised words only); the title is the part after it, which must
// hold a lower-case word.
//
// The AMS styles write the names out the same way ("Grace Adeyemi and
// Tobias Lang, Efficient attention…"): then each name-like part is one or
// more names of two to four words joined by "and".
func commaAuthors(s string) (authors, title, rest string, ok bool) {
	full := !initialStart().MatchString(s)
	parts := strings.Split(s, ", ")
	n := 0
	for n < len(parts) && nameLike(parts[n]) && (!full || fullNames(parts[n])) {
		n++
	}
	if n == 0 || n >= len(parts)-1 || !strings.ContainsFunc(parts[n], unicode.IsLower) {
		return "", "", "", false
	}
	title, rest = parts[n], strings.Join(parts[n+1:], ", ")
	if i := strings.Index(title, ". "); i > 0 && i+2 < len(title) && unicode.IsUpper(rune(title[i+2])) && !isInitialAt(title, i) {
		// A book's title ends at its full stop, before the publisher:
		// "…, HANDS: A Study of Shapes. Springer-Verlag, 1991."
		title, rest = title[:i], title[i+2:]+", "+rest
	}
	if m := venueCue().FindStringIndex(title); m != nil && m[0] > 8 {
		// "…, Title revisited. arXiv preprint arXiv:2305.01234, 2023."
		title, rest = title[:m[0]], strings.TrimLeft(title[m[0]:], ",. ")+", "+rest
	}
	return strings.Join(parts[:n], ", "), title, rest, true
}

// fullNames reports a part of an author list that is names written out,
// each of two to four words, joined by "and": "Thi Lan Nguyen", "and
// Tobias Lang", "Grace Adeyemi and Tobias Lang".
func fullNames(p string) bool {
	for _, name := range strings.Split(strings.TrimPrefix(p, "and "), " and ") {
		if n := len(strings.Fields(name)); n < 2 || n > 4 {
			return false
		}
	}
	return true
}

// sfNamePattern is sfName's expression.
const sfNamePattern = `\p{Lu}[\p{L}\p{M}\p{Sk}'’\-]+,\s\p{Lu}[\p{Ll}\p{M}\p{Sk}]+(?:['’\-]\p{Lu}?[\p{Ll}\p{M}\p{Sk}]+)*(?:\s\p{Lu}\.)*`

// sfName is one "Surname, Firstname I." name, the first name written out
// ("Ranzato, Marc’Aurelio" too);
// sfList an author list of them, up to the full stop that ends it.
var (
	sfName = lazyRegexp(sfNamePattern)
	sfList = lazyRegexp(`^` + sfNamePattern + `(?:(?:,\s(?:and\s)?|\sand\s)` + sfNamePattern + `)*\.?\s`)
)

// journalAbbrev are abbreviated journal words that, right after an author
// list and a comma, mean the entry prints no title (physics styles).
var journalAbbrev = map[string]bool{"Phys": true, "Rev": true, "Lett": true, "Nucl": true, "Chem": true, "Math": true, "Proc": true, "Ann": true, "Philos": true, "Astrophys": true, "Appl": true, "Mod": true, "Nuovo": true}

// initialStart matches an entry that opens with an initial: "N. D. …".
var initialStart = lazyRegexp(`^\p{Lu}\.\s?`)

// nameLike reports whether every word of s is an initial or a capitalised
// word (or "and", or a name particle such as "van"): a name or a list of
// names.
func nameLike(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 12 {
		return false
	}
	for _, w := range words {
		if w == "and" || w == "&" || particle[w] {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) || strings.ContainsAny(w, "()0123456789") {
			return false
		}
	}
	return true
}

// quotedTitle returns the span of the first quoted title, quotes
// included, when it comes early in the entry (after the authors).
func quotedTitle(s string) []int {
	if !strings.ContainsAny(s, "“\"‘「") {
		return nil
	}
	m := quoted().FindStringIndex(s)
	if m == nil || m[0] > 400 {
		return nil
	}
	return m
}

// looksLikeAuthors reports whether s can be an author list: no longer
// than an entry (a collaboration's list runs to dozens of names), with a
// capital letter, not itself a sentence of words.
func looksLikeAuthors(s string) bool {
	return len(s) <= maxEntryRunes && namesOnly(s)
}

// namesOnly is looksLikeAuthors at any length: a run of names, initials
// and the words that join them, with no sentence in it.
func namesOnly(s string) bool {
	if !strings.ContainsFunc(s, unicode.IsUpper) || strings.ContainsAny(s, ":?!()") {
		return false
	}
	// No full stop that ends a sentence rather than an initial.
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && !isInitialAt(s, i) && !strings.HasSuffix(s[:i], " al") {
			return false
		}
	}
	words := strings.Fields(s)
	lower := 0
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLower(r) && !nameFiller(w) {
			lower++
		}
	}
	return lower <= len(words)/4
}

var particle = map[string]bool{"van": true, "von": true, "de": true, "der": true, "den": true, "la": true, "le": true, "da": true, "di": true, "du": true, "del": true, "dos": true}

// authorsEnd returns where the author list of s ends. In "Surname, I."
// lists it is the full stop of an initial that neither a comma, "&",
// "and" nor another initial follows; otherwise the first full stop that
// does not close an initial ("G. E. Hinton. Title").
func authorsEnd(s string) int {
	if surnameInitial().MatchString(s) {
		for i := 0; i < len(s); i++ {
			if s[i] == '.' && strings.HasSuffix(s[:i], " et al") {
				return i + 1
			}
			if s[i] != '.' || i == 0 || !isInitialAt(s, i) {
				continue
			}
			after := strings.TrimLeft(s[i+1:], " ")
			switch {
			case after == "":
				return len(s)
			case strings.HasPrefix(after, "et al"):
				continue
			case after[0] == ',' || after[0] == '&' || after[0] == ';' || after[0] == '-' || after[0] == '(',
				strings.HasPrefix(after, "and "), strings.HasPrefix(after, "AND "),
				len(after) > 1 && after[1] == '.' && unicode.IsUpper(rune(after[0])),
				len(after) > 2 && after[0] == '-' && unicode.IsUpper(rune(after[1])):
				continue
			}
			// "Surname, I. Surname, J." without a comma between names.
			if surnameInitial().MatchString(after) && s[i+1] == ' ' && commaNameNext(after) {
				continue
			}
			return i + 1
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			continue
		}
		if isInitialAt(s, i) {
			continue
		}
		return i + 1
	}
	return 0
}

// titleLike reports a part of an author list that is a title instead: at
// least three words, one of them lower-case and neither a name particle
// nor "and" or "et al".
func titleLike(s string) bool {
	words := strings.Fields(s)
	if len(words) < 3 || strings.HasPrefix(s, "and ") {
		return false
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && !nameFiller(w) {
			return true
		}
	}
	return false
}

// commaNameNext reports whether s opens with "Surname, I." followed by
// more names rather than a title.
func commaNameNext(s string) bool {
	return surnameInitial().MatchString(s) && !strings.Contains(strings.SplitN(s, ".", 2)[0], " ")
}

// isInitialAt reports whether the full stop at s[i] closes an initial
// ("G." or "Th." or "P.A.", or "v." after one).
func isInitialAt(s string, i int) bool {
	j := i
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.IsLetter(r) {
			break
		}
		j -= n
	}
	word := s[j:i]
	n := utf8.RuneCountInString(word)
	if n == 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(word)
	if !unicode.IsUpper(r) {
		// A particle shortened after an initial: "A. v. d. Oord".
		return n == 1 && unicode.IsLower(r) && j >= 2 && s[j-1] == ' ' && s[j-2] == '.' && isInitialAt(s, j-2)
	}
	return n == 1 || (n == 2 && (word == "Th" || word == "Ch" || word == "Ph" || word == "Sh" || word == "Yu" || word == "Zh"))
}

// sentenceAbbrev are words whose full stop does not end a title.
var sentenceAbbrev = map[string]bool{"vs": true, "al": true, "e.g": true, "i.e": true, "St": true, "Vol": true, "vol": true, "No": true, "no": true, "pp": true, "ed": true, "eds": true}

// firstSentence returns the first sentence of s (up to a full stop, a
// question or exclamation mark followed by a space or the end) and the
// rest. A venue cue ("In Proc…", "arXiv preprint") also ends it.
func firstSentence(s string) (string, string) { return sentence(s, true) }

// sentence is firstSentence, with the venue cue only when cue is set.
func sentence(s string, cue bool) (string, string) {
	s = strings.TrimSpace(s)
	end := len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '"' && !strings.HasPrefix(s[i+1:], "”") {
			continue
		}
		if c == '.' {
			j := strings.LastIndexAny(s[:i], " (") + 1
			if sentenceAbbrev[s[j:i]] || (i-j == 1 && unicode.IsUpper(rune(s[j]))) {
				continue
			}
		} else if startsLower(strings.TrimLeft(s[i+1:], " ")) {
			// A question in a title goes on in lower case after styles
			// that lower-case titles: "When do models fail? a study."
			continue
		}
		end = i + 1
		break
	}
	if m := venueCue().FindStringIndex(s[:end]); cue && m != nil && m[0] > 8 {
		return strings.TrimSpace(s[:m[0]]), s[m[0]:]
	}
	return strings.TrimSpace(s[:end]), s[end:]
}

// cleanTitle trims the punctuation around a title and folds its spaces.
func cleanTitle(t string) string {
	t = oneLine(t)
	t = strings.TrimSpace(t)
	t = strings.TrimRight(t, " ,.;:“”\"")
	t = yearTail().ReplaceAllString(t, "")
	t = volTail().ReplaceAllString(t, "")
	// An opening parenthesis never closed starts the publisher's part.
	if i := strings.LastIndexByte(t, '('); i > 0 && !strings.Contains(t[i:], ")") {
		t = strings.TrimRight(t[:i], " ,")
	}
	t = strings.TrimRight(t, " ,.;:“”\"‘’「」")
	t = strings.TrimLeft(t, " ,.;:“”\"‘’「」")
	if t2, ok := strings.CutPrefix(t, "In "); ok && strings.HasPrefix(t2, "Proc") {
		return ""
	}
	// An identifier alone is not a title.
	if l := strings.ToLower(t); !strings.Contains(t, " ") && (strings.HasPrefix(l, "arxiv") || strings.HasPrefix(l, "abs/")) {
		return ""
	}
	// No word of three letters: an initial or an abbreviation, not a title.
	if !strings.ContainsFunc(t, unicode.IsLetter) || !hasWord(t, 3) {
		return ""
	}
	return t
}

// nameSplit separates the names of an author list.
var nameSplit = lazyRegexp(`\s*(?:,\s*(?:and|AND|&)\s+|\s(?:and|AND|&)\s|;\s*|,\s*)`)

// splitAuthors splits an author list into names. "Surname, I." lists are
// paired back up; "et al." is dropped.
func splitAuthors(s string) []string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") && !isInitialAt(s, len(s)-1) {
		s = s[:len(s)-1]
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, " et al"), ",")
	if s == "" {
		return nil
	}
	parts := nameSplit().Split(s, -1)
	var out []string
	paired := surnameInitial().MatchString(s + " ")
	for i := 0; i < len(parts); i++ {
		p := strings.TrimSpace(parts[i])
		if p == "" || p == "et al." || p == "et al" || p == "others" {
			continue
		}
		if paired && i+1 < len(parts) && isInitials(parts[i+1]) {
			p += ", " + strings.TrimSpace(parts[i+1])
			i++
		}
		out = append(out, p)
		if len(out) == 100 {
			break
		}
	}
	return out
}

// isInitials reports whether s is only initials or first names ("G. E.",
// "Yoshua") rather than a surname followed by initials.
func isInitials(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, ".-")
		if utf8.RuneCountInString(w) > 2 && !strings.Contains(w, ".") {
			return false
		}
	}
	return true
}

// surname returns the folded last word of a printed author's family name:
// "Geoffrey E. Hinton", "Hinton, G. E." and "HINTON, G." give "hinton";
// "van der Maaten, L." and "Laurens van der Maaten" give "maaten".
func surname(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.IndexByte(name, ','); i > 0 {
		name = name[:i]
	}
	f := dropInitialsAfter(strings.Fields(name))
	for len(f) > 1 && (f[len(f)-1] == "Jr." || f[len(f)-1] == "Jr") {
		f = f[:len(f)-1]
	}
	if len(f) == 0 {
		return ""
	}
	return normTitle(f[len(f)-1])
}

// dropInitialsAfter drops the initials that follow a surname as the
// Vancouver style prints them, capitals without full stops ("Aad G",
// "Abbott BP"): a last word of one to three capitals after a word in
// mixed case.
func dropInitialsAfter(f []string) []string {
	if n := len(f); n > 1 && strings.ContainsFunc(f[n-2], unicode.IsLower) {
		w := f[n-1]
		if k := utf8.RuneCountInString(w); k <= 3 && !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsUpper(r) }) {
			return f[:n-1]
		}
	}
	return f
}

// arxivIDRe is an arXiv id as printed, so that its digits are not read as
// a year.
var arxivIDRe = lazyRegexp(`(?i)(?:arxiv|abs)[:/]?\s*(?:[0-9]{4}\.[0-9]{4,5}|[a-z-]+(?:\.[a-z]{2})?/[0-9]{7})(?:v[0-9]+)?`)

// hasInitial reports whether s holds an initial ("J." or "J ").
func hasInitial(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && isInitialAt(s, i) {
			return true
		}
	}
	return false
}

// hasWord reports whether s has a run of at least n letters.
func hasWord(s string, n int) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
