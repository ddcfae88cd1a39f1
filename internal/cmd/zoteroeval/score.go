package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/tools"
)

// Targets.
const (
	minMarkRecall   = 0.95
	maxFalseRate    = 0.02
	minSearchFirst3 = 0.90
	minTextF1       = 0.9
)

// fields are the metadata fields scored, in the table's order: "date" is
// the year the metadata read gives (the record of an item with no PDF also
// gives the date, scored apart as recordDate); "related" the items
// paper_relations gives; "notes" the text of the item's child notes.
var fields = []string{"title", "creators", "date", "DOI", "collections", "tags", "related", "notes"}

// itemView is what the tools serve of an item: its metadata read's title,
// creators, year and DOI, and whether the item is listed by the grant of
// each collection and each tag of its library.
type itemView struct {
	Title    string
	Creators []string
	Year     int
	DOI      string
	// InCollection and InTag: by collection path and by tag, whether the
	// grant of it lists the item.
	InCollection, InTag map[string]bool
	Related             []string          // keys of the related items
	Notes               map[string]string // child notes' text, by key
}

// scoreItem says, per field, whether got is the truth's item. A collection
// lists the items of its subcollections too, so the item must be listed by
// exactly its collections and their ancestors; and by exactly its tags.
// Related items in the trash (trashed, by key) are not there. A note's
// text is compared with its runs of white space made one space.
func scoreItem(want *truthItem, got itemView, trashed map[string]bool) map[string]bool {
	inColl := map[string]bool{}
	for _, c := range want.Collections {
		for p := c; p != ""; p = parentPath(p) {
			inColl[p] = true
		}
	}
	inTag := map[string]bool{}
	for _, t := range want.Tags {
		inTag[t.Tag] = true
	}
	doi := ""
	if want.DOI != nil {
		doi = *want.DOI
	}
	var related []string
	for _, k := range want.Related {
		if !trashed[k] {
			related = append(related, k)
		}
	}
	notes := len(got.Notes) == len(want.Notes)
	for _, n := range want.Notes {
		text, ok := got.Notes[n.Key]
		notes = notes && ok && strings.Join(strings.Fields(text), " ") == strings.Join(strings.Fields(n.Text), " ")
	}
	return map[string]bool{
		"title":       got.Title == want.Title,
		"creators":    slices.Equal(got.Creators, want.creatorNames()),
		"date":        got.Year == want.Year,
		"DOI":         got.DOI == doi,
		"collections": sameMembership(got.InCollection, inColl),
		"tags":        sameMembership(got.InTag, inTag),
		"related":     sameSet(got.Related, related),
		"notes":       notes,
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// parentPath is the path of a collection's parent, "" at the top.
func parentPath(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// sameMembership reports whether got, by every name it was asked about,
// and want (the names that hold the item) agree; a name of want got was
// not asked about is a miss.
func sameMembership(got, want map[string]bool) bool {
	for n, in := range got {
		if in != want[n] {
			return false
		}
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			return false
		}
	}
	return true
}

// entryKey is the item key an entry of a listing names: "Title [KEY]".
func entryKey(name string) string {
	i := strings.LastIndex(name, " [")
	if i < 0 || !strings.HasSuffix(name, "]") {
		return ""
	}
	return name[i+2 : len(name)-1]
}

// recordLine is a line of an item's record after its title: "Item type:
// book", "Attachment 3ZLZ2VMA: …" (the fields the record gives).
var recordLine = regexp.MustCompile(`^(?:Creators|Item type|Date|Publication|DOI|URL|Citation key|Tags|Collections|Attachment [0-9A-Z]{8}): `)

// recordDate is the "Date: …" line of an item's record, the text the SDK
// serves for an item with no PDF: its title, then "Key: value" lines, then
// its abstract. ok is false when text is no record.
func recordDate(text string) (date string, ok bool) {
	head, _, _ := strings.Cut(text, "\n\nAbstract\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	if len(lines) < 2 || strings.HasPrefix(lines[0], "[page ") {
		return "", false
	}
	for _, line := range lines[1:] {
		if !recordLine.MatchString(line) {
			return "", false
		}
		if v, ok := strings.CutPrefix(line, "Date: "); ok {
			date = v
		}
	}
	return date, true
}

// markScore counts the annotations of some attachments against the marks
// served for them.
type markScore struct {
	Truths, Found   int // truth annotations, and those served right
	Served, False   int // marks served, and those matching no truth annotation
	Misses, Falsies []string
}

// add adds o's counts to s.
func (s *markScore) add(o markScore) {
	s.Truths += o.Truths
	s.Found += o.Found
	s.Served += o.Served
	s.False += o.False
	s.Misses = append(s.Misses, o.Misses...)
	s.Falsies = append(s.Falsies, o.Falsies...)
}

// scoreMarks matches want against got: a mark is right when it is cited by
// the annotation's own URI and has its kind, its 1-based page, its text
// (word F1 ≥ minTextF1; none when the annotation marks no text) and its
// comment verbatim. A served mark that is right for no annotation is false.
func scoreMarks(want []truthAnnotation, got []tools.MarkInfo) markScore {
	s := markScore{Truths: len(want), Served: len(got)}
	used := make([]bool, len(got))
	for _, w := range want {
		i := slices.IndexFunc(got, func(m tools.MarkInfo) bool { return m.CitationURI == w.citation() })
		why := ""
		switch {
		case i < 0:
			why = "not served"
		case used[i]:
			why = "served once for two annotations"
		default:
			why = markDiff(w, got[i])
		}
		if why != "" {
			s.Misses = append(s.Misses, fmt.Sprintf("%s %s p%d: %s", w.Key, w.Type, w.page(), why))
			continue
		}
		used[i] = true
		s.Found++
	}
	for i, m := range got {
		if !used[i] {
			s.False++
			s.Falsies = append(s.Falsies, fmt.Sprintf("%s p%d %s", m.Kind, m.Page, m.CitationURI))
		}
	}
	return s
}

// markDiff says how m differs from w, "" when it does not.
func markDiff(w truthAnnotation, m tools.MarkInfo) string {
	comment := ""
	if w.Comment != nil {
		comment = *w.Comment
	}
	switch {
	case string(m.Kind) != markKinds[w.Type]:
		return fmt.Sprintf("kind %q", m.Kind)
	case m.Page != w.page():
		return fmt.Sprintf("page %d", m.Page)
	case w.Text != "" && textnorm.WordF1(m.Text, w.Text) < minTextF1:
		return fmt.Sprintf("text %.60q", m.Text)
	case w.Text == "" && m.Text != "":
		return fmt.Sprintf("text %.60q on a mark of no text", m.Text)
	case m.Comment != comment:
		return fmt.Sprintf("comment %.60q", m.Comment)
	}
	return ""
}

// page is the annotation's 1-based page, 0 for none (on an EPUB).
func (w truthAnnotation) page() int {
	if w.PageIndex == nil {
		return 0
	}
	return *w.PageIndex + 1
}

// citation is the annotation's own URI: on a PDF its page's with
// &annotation=<key>, on an EPUB its place's.
func (w truthAnnotation) citation() string {
	if w.URIWithAnnotation != "" {
		return w.URIWithAnnotation
	}
	return w.URI
}

// inFirst reports whether one of the first k cards cites the page uri
// names (or an annotation on it: uri&annotation=…).
func inFirst(cards []tools.Card, uri string, k int) bool {
	for i, c := range cards {
		if i >= k {
			break
		}
		for _, u := range append([]string{c.CitationURI}, c.CitationURIs...) {
			if u == uri || strings.HasPrefix(u, uri+"&") {
				return true
			}
		}
	}
	return false
}

// report is one data directory's figures.
type report struct {
	Layout string

	Items   int            // items whose metadata was read
	FieldOK map[string]int // per field, items right
	Meta    []string       // misses

	Records, RecordDates int // records served (items with no PDF), and those whose date is the item's as Zotero shows it

	Marks markScore

	Pages, PagesCited int // PDF pages read, and read and cited by their open-pdf URI
	PageMisses        []string

	Searches, First3 int // comment searches, and those whose page is in the first cards
	SearchMisses     []string

	Trashed, TrashedRefused int // trashed items (their record, files and annotations), and those refused
	Outside, OutsideRefused int // linked files outside the allowed folders, and those refused
	Missing, MissingRefused int // attachments whose file is gone, and those read as an error
	WAL, WALSeen            int // keys only in the write-ahead log, and those served
	Refusals                []string
	trashListed             bool // a trashed item was listed by a collection or tag

	Changed []string // files of Zotero's folders added, removed or changed
}

// ratio is a/b, 1 when b is 0 (nothing to miss).
func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// missed names the targets r misses.
func (r *report) missed() []string {
	var m []string
	for _, f := range fields {
		if r.FieldOK[f] != r.Items {
			m = append(m, fmt.Sprintf("%s %d/%d", f, r.FieldOK[f], r.Items))
		}
	}
	if r.RecordDates != r.Records {
		m = append(m, fmt.Sprintf("record date %d/%d", r.RecordDates, r.Records))
	}
	if ratio(r.Marks.Found, r.Marks.Truths) < minMarkRecall {
		m = append(m, fmt.Sprintf("annotation recall %.3f < %.2f", ratio(r.Marks.Found, r.Marks.Truths), minMarkRecall))
	}
	if r.Marks.Served > 0 && ratio(r.Marks.False, r.Marks.Served) > maxFalseRate {
		m = append(m, fmt.Sprintf("false marks %.1f %% > %.0f %%", 100*ratio(r.Marks.False, r.Marks.Served), 100*maxFalseRate))
	}
	if r.PagesCited != r.Pages {
		m = append(m, fmt.Sprintf("pages cited %d/%d", r.PagesCited, r.Pages))
	}
	if ratio(r.First3, r.Searches) < minSearchFirst3 {
		m = append(m, fmt.Sprintf("comment search first 3 %.3f < %.2f", ratio(r.First3, r.Searches), minSearchFirst3))
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"trashed refused", r.TrashedRefused, r.Trashed},
		{"outside file refused", r.OutsideRefused, r.Outside},
		{"missing file refused", r.MissingRefused, r.Missing},
		{"WAL keys seen", r.WALSeen, r.WAL},
	} {
		if c.got != c.want {
			m = append(m, fmt.Sprintf("%s %d/%d", c.name, c.got, c.want))
		}
	}
	if len(r.Changed) > 0 {
		m = append(m, fmt.Sprintf("Zotero's folders changed (%d files)", len(r.Changed)))
	}
	return m
}

// print writes r as a table.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s\n", r.Layout)
	fmt.Fprintf(w, "  %-34s %9s  %s\n", "measure", "result", "target")
	row := func(name, result, target string) { fmt.Fprintf(w, "  %-34s %9s  %s\n", name, result, target) }
	frac := func(a, b int) string { return fmt.Sprintf("%d/%d", a, b) }
	for _, f := range fields {
		name := "metadata: " + f
		if f == "date" {
			name += " (year)"
		}
		row(name, frac(r.FieldOK[f], r.Items), "all")
	}
	row("record date (items with no PDF)", frac(r.RecordDates, r.Records), "all")
	row("annotations recall", fmt.Sprintf("%.3f", ratio(r.Marks.Found, r.Marks.Truths)), fmt.Sprintf("≥ %.2f (%s)", minMarkRecall, frac(r.Marks.Found, r.Marks.Truths)))
	fr := 0.0
	if r.Marks.Served > 0 {
		fr = ratio(r.Marks.False, r.Marks.Served)
	}
	row("annotations false", fmt.Sprintf("%.1f %%", 100*fr), fmt.Sprintf("≤ %.0f %% (%d of %d served)", 100*maxFalseRate, r.Marks.False, r.Marks.Served))
	row("PDF pages cited open-pdf?page=N", frac(r.PagesCited, r.Pages), "all")
	row("comment search: page in first 3", fmt.Sprintf("%.3f", ratio(r.First3, r.Searches)), fmt.Sprintf("≥ %.2f (%s)", minSearchFirst3, frac(r.First3, r.Searches)))
	row("trashed items refused", frac(r.TrashedRefused, r.Trashed), "all")
	row("outside linked files refused", frac(r.OutsideRefused, r.Outside), "all")
	row("missing files read as an error", frac(r.MissingRefused, r.Missing), "all")
	row("WAL-only keys seen", frac(r.WALSeen, r.WAL), "all")
	row("Zotero's files changed or added", fmt.Sprint(len(r.Changed)), "0")
}

// printMisses writes every miss of r.
func (r *report) printMisses(w io.Writer) {
	for _, group := range []struct {
		name string
		list []string
	}{
		{"metadata", r.Meta}, {"annotation missed", r.Marks.Misses}, {"false mark", r.Marks.Falsies},
		{"page", r.PageMisses}, {"search", r.SearchMisses}, {"refusal", r.Refusals}, {"file", r.Changed},
	} {
		for _, m := range group.list {
			fmt.Fprintf(w, "%s: %s: %s\n", r.Layout, group.name, m)
		}
	}
}
