package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Classes of perturbed quotes.
const (
	Light    = "light"
	Medium   = "medium"
	Cross    = "cross"
	Negative = "negative"
)

// Classes lists the classes in report order.
var Classes = []string{Light, Medium, Cross, Negative}

// Paper is one corpus paper: its pdftotext reference pages and the pages
// our extractor gives.
type Paper struct {
	Name   string
	TwoCol bool
	Ref    []string     // reference text per page
	Ours   []string     // extracted text per page
	Lines  [][]pdf.Line // extracted lines per page
}

// Quote is one generated quote and the page it must be found on (0-based;
// -1 for a negative, which must not be found).
type Quote struct {
	Class string
	Kind  string // the perturbation, for the failure listing
	Text  string
	Page  int
}

// LoadPapers reads the English papers with a text layer from the corpus
// (manifest.tsv gives layout and script) in name order, and extracts those
// that keep accepts (given the paper's index in that order and its name;
// nil keeps all).
func LoadPapers(ctx context.Context, pdfDir, refDir string, keep func(i int, name string) bool) ([]*Paper, error) {
	data, err := os.ReadFile(filepath.Join(pdfDir, "manifest.tsv"))
	if err != nil {
		return nil, err
	}
	var all []*Paper
	for i, line := range strings.Split(string(data), "\n") {
		cols := strings.Split(line, "\t")
		if i == 0 || len(cols) < 9 || cols[8] != "en" || cols[7] == "scan" {
			continue
		}
		all = append(all, &Paper{Name: strings.TrimSuffix(cols[0], ".pdf"), TwoCol: cols[7] == "2col"})
	}
	slices.SortFunc(all, func(a, b *Paper) int { return strings.Compare(a.Name, b.Name) })
	var out []*Paper
	for i, p := range all {
		if keep != nil && !keep(i, p.Name) {
			continue
		}
		ref, err := os.ReadFile(filepath.Join(refDir, p.Name+".txt"))
		if err != nil {
			return nil, err
		}
		p.Ref = strings.Split(strings.TrimSuffix(string(ref), "\f"), "\f")
		doc, err := extract(ctx, filepath.Join(pdfDir, p.Name+".pdf"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		for _, pg := range doc.Pages {
			p.Ours = append(p.Ours, pg.Text)
			p.Lines = append(p.Lines, pg.Lines)
		}
		out = append(out, p)
	}
	return out, nil
}

func extract(ctx context.Context, path string) (*pdf.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return pdf.Extract(ctx, f, st.Size(), nil)
}

// Split divides papers, as LoadPapers returns them all, by a fixed rule:
// alternate papers in name order are for tuning and held out (HeldOut).
func Split(papers []*Paper) (tune, held []*Paper) {
	for i, p := range papers {
		if HeldOut(i, p.Name) {
			held = append(held, p)
		} else {
			tune = append(tune, p)
		}
	}
	return tune, held
}

// HeldOut reports whether the i-th paper in name order is held out from
// tuning.
func HeldOut(i int, _ string) bool { return i%2 == 1 }

// word is a word of a reference page and whether a line break follows it.
type word struct {
	text    string
	lineEnd bool
}

func pageWords(page string) []word {
	var ws []word
	for _, line := range strings.Split(page, "\n") {
		f := strings.Fields(line)
		for i, w := range f {
			ws = append(ws, word{text: w, lineEnd: i == len(f)-1})
		}
	}
	return ws
}

// gen generates quotes for one paper with its own random source.
type gen struct {
	p     *Paper
	rng   *rand.Rand
	words [][]word // per reference page
	vocab []string
	heads map[string]int  // normalised first and last lines, by how many pages have them
	grams map[string]bool // word 4-grams of the paper, built on first use
}

func newGen(p *Paper, seed uint64) *gen {
	h := fnv.New64a()
	h.Write([]byte(p.Name))
	g := &gen{p: p, rng: rand.New(rand.NewPCG(seed, h.Sum64())), heads: map[string]int{}}
	seen := map[string]bool{}
	for _, page := range p.Ref {
		ws := pageWords(page)
		g.words = append(g.words, ws)
		for _, w := range ws {
			if t := strings.Trim(w.text, ".,;:()[]"); len(t) > 3 && isAlpha(t) && !seen[t] {
				seen[t] = true
				g.vocab = append(g.vocab, t)
			}
		}
		lines := nonEmptyLines(page)
		if len(lines) > 0 {
			g.heads[lineKey(lines[0])]++
			g.heads[lineKey(lines[len(lines)-1])]++
		}
	}
	return g
}

func isAlpha(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

func nonEmptyLines(page string) []string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// lineKey folds a line for spotting running headers: digits dropped.
func lineKey(l string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return r
	}, l)), " ")
}

// span picks n consecutive words of a page with at least min words, or
// reports none.
func (g *gen) span(n int) (int, []word, bool) {
	for try := 0; try < 50; try++ {
		pg := g.rng.IntN(len(g.words))
		ws := g.words[pg]
		if len(ws) < n+20 {
			continue
		}
		s := g.rng.IntN(len(ws) - n + 1)
		return pg, ws[s : s+n], true
	}
	return 0, nil, false
}

// join writes words as a model quotes them: one space between words, and
// a word hyphenated at a line end joined again.
func join(ws []word) []string {
	var out []string
	for i := 0; i < len(ws); i++ {
		w := ws[i].text
		if ws[i].lineEnd && strings.HasSuffix(w, "-") && i+1 < len(ws) && startsLower(ws[i+1].text) {
			out = append(out, strings.TrimSuffix(w, "-")+ws[i+1].text)
			i++
			continue
		}
		out = append(out, w)
	}
	return out
}

func startsLower(s string) bool {
	for _, r := range s {
		return unicode.IsLower(r)
	}
	return false
}

// Generate makes n quotes of each positive class for p, and n negatives
// from the other papers.
func Generate(p *Paper, others []*Paper, n int, seed uint64) []Quote {
	g := newGen(p, seed)
	var out []Quote
	for range n {
		if pg, ws, ok := g.span(12 + g.rng.IntN(29)); ok {
			kind, text := g.light(join(ws))
			out = append(out, Quote{Class: Light, Kind: kind, Text: text, Page: pg})
		}
		if pg, ws, ok := g.span(12 + g.rng.IntN(29)); ok {
			kind, text := g.medium(join(ws))
			out = append(out, Quote{Class: Medium, Kind: kind, Text: text, Page: pg})
		}
		if q, ok := g.cross(); ok {
			out = append(out, q)
		}
		if len(others) > 0 {
			o := newGen(others[g.rng.IntN(len(others))], seed+uint64(len(out)))
			if _, ws, ok := o.span(12 + g.rng.IntN(29)); ok && !g.shares(ws) {
				kind, text := g.light(join(ws))
				out = append(out, Quote{Class: Negative, Kind: kind, Text: text, Page: -1})
			}
		}
	}
	return out
}

// shares reports whether a span of another paper is text this paper has
// too (a reference both cite, a publisher's boilerplate): a quarter of its
// word 4-grams occur in this paper. Such a span is no negative.
func (g *gen) shares(ws []word) bool {
	if g.grams == nil {
		g.grams = map[string]bool{}
		for _, page := range g.words {
			t := terms(page)
			for i := 0; i+4 <= len(t); i++ {
				g.grams[strings.Join(t[i:i+4], " ")] = true
			}
		}
	}
	t := terms(ws)
	n, hit := 0, 0
	for i := 0; i+4 <= len(t); i++ {
		n++
		if g.grams[strings.Join(t[i:i+4], " ")] {
			hit++
		}
	}
	return n > 0 && 4*hit >= n
}

// terms folds words for comparison.
func terms(ws []word) []string {
	var out []string
	for _, tok := range textnorm.Tokens(wordsText(ws)) {
		out = append(out, tok.Term)
	}
	return out
}

func wordsText(ws []word) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.text)
		b.WriteByte(' ')
	}
	return b.String()
}

// light applies one or two small edits.
func (g *gen) light(ws []string) (string, string) {
	var kinds []string
	for range 1 + g.rng.IntN(2) {
		var k string
		ws, k = g.edit(ws, []string{"drop", "change", "inflect", "space", "hyphen"})
		kinds = append(kinds, k)
	}
	return strings.Join(kinds, "+"), g.render(ws)
}

// medium changes about a fifth of the words, or moves a clause.
func (g *gen) medium(ws []string) (string, string) {
	if g.rng.IntN(2) == 0 {
		cut := len(ws) / 2
		for i := len(ws) / 4; i < len(ws)*3/4; i++ {
			if strings.HasSuffix(ws[i], ",") {
				cut = i + 1
				break
			}
		}
		moved := append(slices.Clone(ws[cut:]), ws[:cut]...)
		moved, _ = g.edit(moved, []string{"change", "drop"})
		return "reorder", g.render(moved)
	}
	k := max(2, (len(ws)+2)/5)
	for range k {
		ws, _ = g.edit(ws, []string{"drop", "change", "insert", "inflect"})
	}
	return "20%", g.render(ws)
}

// render joins words with spaces; a word carrying a "\n" marker keeps a
// line break.
func (g *gen) render(ws []string) string {
	return strings.Join(ws, " ")
}

// edit applies one edit of the given kinds.
func (g *gen) edit(ws []string, kinds []string) ([]string, string) {
	ws = slices.Clone(ws)
	k := kinds[g.rng.IntN(len(kinds))]
	i := g.rng.IntN(len(ws))
	switch k {
	case "drop":
		if len(ws) > 6 {
			ws = slices.Delete(ws, i, i+1)
		}
	case "change":
		ws[i] = g.vocab[g.rng.IntN(len(g.vocab))]
	case "insert":
		ws = slices.Insert(ws, i, g.vocab[g.rng.IntN(len(g.vocab))])
	case "inflect":
		ws[i] = inflect(ws[i])
	case "space":
		if i > 0 {
			ws[i] = []string{"\n", "  ", "\t"}[g.rng.IntN(3)] + ws[i]
		}
	case "hyphen":
		// A word split as a rendered page copies it ("exam- ple").
		for try := 0; try < len(ws); try++ {
			j := (i + try) % len(ws)
			if w := ws[j]; len(w) >= 8 && isAlpha(w) {
				c := 3 + g.rng.IntN(len(w)-5)
				ws[j] = w[:c] + "- " + w[c:]
				break
			}
		}
	}
	return ws, k
}

// inflect changes a word's inflection: plural to singular and back, or a
// verb form.
func inflect(w string) string {
	core := strings.TrimRight(w, ".,;:)")
	tail := w[len(core):]
	switch {
	case len(core) < 4 || !isAlpha(core):
		return w
	case strings.HasSuffix(core, "ing"):
		core = strings.TrimSuffix(core, "ing") + "ed"
	case strings.HasSuffix(core, "ed"):
		core = strings.TrimSuffix(core, "ed") + "ing"
	case strings.HasSuffix(core, "s"):
		core = strings.TrimSuffix(core, "s")
	default:
		core += "s"
	}
	return core + tail
}

// cross makes a quote across a page break or, in a two-column paper, from
// the end of the left column into the top of the right column.
func (g *gen) cross() (Quote, bool) {
	if g.rng.IntN(3) == 0 {
		if q, ok := g.table(); ok {
			return q, true
		}
	}
	if g.p.TwoCol && g.rng.IntN(2) == 0 {
		if q, ok := g.column(); ok {
			return q, true
		}
	}
	return g.pageBreak()
}

// body returns the words of a reference page without its running header
// and footer lines (lines shared by several pages, or only a number).
func (g *gen) body(pg int) []word {
	lines := nonEmptyLines(g.p.Ref[pg])
	isFurniture := func(l string) bool {
		k := lineKey(l)
		return k == "" || g.heads[k] > 1 || len(strings.Fields(l)) <= 2
	}
	for len(lines) > 0 && isFurniture(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isFurniture(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return pageWords(strings.Join(lines, "\n"))
}

func (g *gen) pageBreak() (Quote, bool) {
	for try := 0; try < 20; try++ {
		pg := g.rng.IntN(len(g.words) - 1)
		a, b := g.body(pg), g.body(pg+1)
		k1, k2 := 6+g.rng.IntN(15), 6+g.rng.IntN(15)
		if len(a) < k1+10 || len(b) < k2+10 {
			continue
		}
		ws := append(slices.Clone(a[len(a)-k1:]), b[:k2]...)
		ws[k1-1].lineEnd = true
		return Quote{Class: Cross, Kind: "page", Text: strings.Join(join(ws), " "), Page: pg}, true
	}
	return Quote{}, false
}

// column finds, in our extraction's lines, a left-column line followed by
// a right-column line higher up, finds both lines in the reference page,
// and quotes the words before the first's end and from the second's start.
func (g *gen) column() (Quote, bool) {
	for try := 0; try < 20; try++ {
		pg := g.rng.IntN(len(g.p.Lines))
		lines := g.p.Lines[pg]
		var at []int
		for i := 0; i+1 < len(lines); i++ {
			a, b := lines[i].Box, lines[i+1].Box
			if a.X+a.W < 0.55 && b.X > 0.45 && b.Y < a.Y-0.2 && len(strings.Fields(lines[i].Text)) >= 5 && len(strings.Fields(lines[i+1].Text)) >= 5 {
				at = append(at, i)
			}
		}
		if len(at) == 0 || pg >= len(g.words) {
			continue
		}
		i := at[g.rng.IntN(len(at))]
		ws := g.words[pg]
		ia := findWords(ws, strings.Fields(lines[i].Text))
		ib := findWords(ws, strings.Fields(lines[i+1].Text))
		if ia < 0 || ib < 0 {
			continue
		}
		ea := ia + len(strings.Fields(lines[i].Text))
		k1, k2 := 6+g.rng.IntN(15), 6+g.rng.IntN(15)
		if ea < k1 || ib+k2 > len(ws) {
			continue
		}
		q := append(slices.Clone(ws[ea-k1:ea]), ws[ib:ib+k2]...)
		q[k1-1].lineEnd = true
		return Quote{Class: Cross, Kind: "column", Text: strings.Join(join(q), " "), Page: pg}, true
	}
	return Quote{}, false
}

// findWords returns the index of the first occurrence of want in ws.
func findWords(ws []word, want []string) int {
	if len(want) == 0 {
		return -1
	}
outer:
	for i := 0; i+len(want) <= len(ws); i++ {
		for j, w := range want {
			if ws[i+j].text != w {
				continue outer
			}
		}
		return i
	}
	return -1
}

// tableCaption opens a table caption: "Table 3:", "Table 2.", "TABLE IV".
var tableCaption = regexp.MustCompile(`^(?:Table|TABLE)\s+(?:\d+|[IVX]+)[.:]`)

// numberedHeading opens a section heading: "5.2 Qualitative analysis".
var numberedHeading = regexp.MustCompile(`^\d+(?:\.\d+)*\.?\s+\p{Lu}`)

// table makes a quote across a table boundary: the opening words of a
// table caption set above its table (as the reference prints them)
// followed by the table's header row, the row below the caption in our
// extraction, with its cells in another order (rotated), as a model
// reading the table in another order quotes them.
func (g *gen) table() (Quote, bool) {
	type cand struct{ pg, cap, head int }
	var cands []cand
	for pg, lines := range g.p.Lines {
		if pg >= len(g.words) {
			break
		}
		// A table row has white space between its cells: fewer characters
		// per unit of width than the page's running text.
		var dens []float64
		for _, l := range lines {
			if len(strings.Fields(l.Text)) >= 8 && l.Box.W > 0 {
				dens = append(dens, float64(len(l.Text))/l.Box.W)
			}
		}
		if len(dens) < 5 {
			continue
		}
		slices.Sort(dens)
		body := dens[len(dens)/2]
		row := func(l pdf.Line) bool { return l.Box.W > 0 && float64(len(l.Text))/l.Box.W < 0.7*body }
		for i, l := range lines {
			if !tableCaption.MatchString(l.Text) {
				continue
			}
			// The caption's paragraph: lines joined by one line break.
			end := i
			for end+1 < len(lines) && !paraBreak(g.p.Ours[pg], lines[end], lines[end+1]) {
				end++
			}
			// A caption set above its table: the table's first row (its
			// header) comes right below the caption's paragraph, and
			// another row right below that.
			h := end + 1
			if h+1 >= len(lines) || !paraBreak(g.p.Ours[pg], lines[end], lines[h]) {
				continue
			}
			head, next := lines[h], lines[h+1]
			n := len(strings.Fields(head.Text))
			if n >= 3 && n <= 14 && row(head) && row(next) && head.Box.Y > lines[end].Box.Y && head.Box.Y-lines[end].Box.Y < 0.06 &&
				next.Box.Y > head.Box.Y && next.Box.Y-head.Box.Y < 0.03 && len(strings.Fields(next.Text)) >= 2 &&
				!tableCaption.MatchString(head.Text) && !numberedHeading.MatchString(head.Text) {
				cands = append(cands, cand{pg, i, h})
			}
		}
	}
	if len(cands) == 0 {
		return Quote{}, false
	}
	c := cands[g.rng.IntN(len(cands))]
	capWords := strings.Fields(g.p.Lines[c.pg][c.cap].Text)
	ws := g.words[c.pg]
	at := findWords(ws, capWords[:min(4, len(capWords))])
	if at < 0 {
		return Quote{}, false // the reference prints the caption otherwise
	}
	k := min(6+g.rng.IntN(10), len(ws)-at)
	head := strings.Fields(g.p.Lines[c.pg][c.head].Text)
	r := 1 + g.rng.IntN(len(head)-1)
	cells := append(slices.Clone(head[r:]), head[:r]...)
	text := strings.Join(join(ws[at:at+k]), " ") + " " + strings.Join(cells, " ")
	return Quote{Class: Cross, Kind: "table", Text: text, Page: c.pg}, true
}

// paraBreak reports a blank line between two consecutive lines of a page.
func paraBreak(page string, a, b pdf.Line) bool {
	from := a.Start + len(a.Text)
	return from <= b.Start && b.Start <= len(page) && strings.Count(page[from:b.Start], "\n") > 1
}
