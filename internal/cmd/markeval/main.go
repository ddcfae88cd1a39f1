// Command markeval measures how well the researcher's marks are read: it
// makes annotated copies of the corpus PDFs (highlights, underlines,
// strike-outs and squigglies over one or two lines of a page's text, and
// sticky notes, each with a comment, added as an incremental update with
// pdfcpu's annotation API, as a viewer saves them), reads them back, and
// reports marks recall (kind, page, marked text at word F1 ≥ 0.9, comment
// verbatim), false marks among those returned (the arXiv link annotations
// must not be among them) and how often a search for a comment's words
// puts the mark's page in the first three cards. The copies are made in a
// temporary folder, never kept; every third file is held out and reported
// apart.
//
// Usage (from the module root): go run ./internal/cmd/markeval [-dir corpus/pdfs] [-keep DIR]
// (MARKEVAL_DEBUG=1 prints each mark missed and each false one)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/color"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/tools"
)

// truth is one mark added to a copy.
type truth struct {
	page          int
	kind          string
	text, comment string
}

// fixture is one annotated copy.
type fixture struct {
	name    string
	held    bool
	data    []byte
	marks   []truth
	skipped string
}

// counts are the figures of one split.
type counts struct {
	files, truths, found, returned, falseMarks, links int
	queries, first3                                   int
	folderFirst3                                      int // the same searches over the papers folder granted
}

func main() {
	dir := flag.String("dir", "", "folder of PDFs (default: the corpus's pdfs)")
	keep := flag.String("keep", "", "also write the annotated copies into this folder")
	flag.Parse()
	log.SetFlags(0)
	if *dir == "" {
		root, err := corpus.Root()
		if err != nil {
			log.Fatal(err)
		}
		*dir = filepath.Join(root, "pdfs")
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.pdf"))
	if err != nil {
		log.Fatal(err)
	}
	sort.Strings(files)
	var fixtures []*fixture
	for i, f := range files {
		fx := annotate(f, i%3 == 2)
		if fx.skipped != "" {
			fmt.Printf("skipped %s: %s\n", fx.name, fx.skipped)
			continue
		}
		fixtures = append(fixtures, fx)
		if *keep != "" {
			if err := os.WriteFile(filepath.Join(*keep, fx.name), fx.data, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	res := map[bool]*counts{false: {}, true: {}}
	for _, fx := range fixtures {
		measure(fx, res[fx.held])
	}
	search(fixtures, res)
	for _, held := range []bool{false, true} {
		c := res[held]
		name := "development"
		if held {
			name = "held out"
		}
		fmt.Printf("%-11s files %2d  marks %3d  recall %.3f  false marks %d of %d returned (%.1f %%; link annotations returned: %d)  search first 3: %d of %d (%.3f), over the folder %d (%.3f)\n",
			name, c.files, c.truths, ratio(c.found, c.truths), c.falseMarks, c.returned, 100*ratio(c.falseMarks, c.returned), c.links, c.first3, c.queries, ratio(c.first3, c.queries), c.folderFirst3, ratio(c.folderFirst3, c.queries))
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

var kinds = []struct {
	kind string
	typ  model.AnnotationType
}{
	{pdf.MarkHighlight, model.AnnHighLight},
	{pdf.MarkUnderline, model.AnnUnderline},
	{pdf.MarkStrikeOut, model.AnnStrikeOut},
	{pdf.MarkSquiggly, model.AnnSquiggly},
}

var templates = []string{
	"Check whether this holds for %s as well.",
	"Key claim: compare with our %s baseline before citing.",
	"Not convinced the %s argument generalises; ask in the reading group.",
	"Reproduce the %s numbers on our own data.",
	"Why %s here and not something simpler?",
	"Use this definition of %s in the related work section.",
}

// annotate makes the annotated copy of one PDF: on up to three pages with
// text, up to three marks each over lines that no other mark covers.
func annotate(path string, held bool) *fixture {
	fx := &fixture{name: filepath.Base(path), held: held}
	data, err := os.ReadFile(path)
	if err != nil {
		fx.skipped = err.Error()
		return fx
	}
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		fx.skipped = "not readable: " + err.Error()
		return fx
	}
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := api.ReadAndValidate(bytes.NewReader(data), conf)
	if err != nil {
		fx.skipped = "pdfcpu: " + err.Error()
		return fx
	}
	h := fnv.New64a()
	h.Write([]byte(fx.name))
	rng := rand.New(rand.NewSource(int64(h.Sum64())))
	m := map[int][]model.AnnotationRenderer{}
	var pages []int
	for _, p := range doc.Pages {
		if p.Err == nil && len(p.Lines) > 10 {
			pages = append(pages, p.Number)
		}
	}
	rng.Shuffle(len(pages), func(i, j int) { pages[i], pages[j] = pages[j], pages[i] })
	if len(pages) > 3 {
		pages = pages[:3]
	}
	sort.Ints(pages)
	id := 0
	for _, n := range pages {
		_, _, inh, err := ctx.PageDict(n, false)
		if err != nil || inh == nil || inh.MediaBox == nil || inh.Rotate%360 != 0 {
			if os.Getenv("MARKEVAL_DEBUG") != "" {
				log.Printf("%s page %d: %v %+v", fx.name, n, err, inh)
			}
			continue
		}
		box := inh.MediaBox
		if inh.CropBox != nil {
			box = inh.CropBox
		}
		pg := doc.Pages[n-1]
		used := map[int]bool{}
		for k := 0; k < 3; k++ {
			l := pickLine(pg, rng, used)
			if l < 0 {
				break
			}
			id++
			word := pageWord(pg.Lines[l].Text, rng)
			comment := fmt.Sprintf(templates[rng.Intn(len(templates))], word)
			if rng.Intn(4) == 0 {
				// A sticky note beside the line.
				r := userRect(pg, box, pg.Lines[l].Box)
				rect := types.NewRectangle(max(box.LL.X, r.LL.X-24), r.UR.Y-16, max(box.LL.X, r.LL.X-8), r.UR.Y)
				col := color.SimpleColor{R: 1, G: 0.8, B: 0}
				m[n] = append(m[n], model.NewTextAnnotation(*rect, 0, comment, fmt.Sprintf("n%d", id), "", 0, &col, "Reader", nil, nil, "", "", 0, 0, 0, false, "Comment"))
				fx.marks = append(fx.marks, truth{page: n, kind: pdf.MarkNote, comment: comment})
				used[l] = true
				continue
			}
			lines := []int{l}
			if rng.Intn(3) == 0 && l+1 < len(pg.Lines) && !used[l+1] && sameColumn(pg.Lines[l], pg.Lines[l+1]) {
				lines = append(lines, l+1)
			}
			var quads types.QuadPoints
			var texts []string
			u := types.NewRectangle(1e9, 1e9, -1e9, -1e9)
			for _, li := range lines {
				used[li] = true
				r := userRect(pg, box, pg.Lines[li].Box)
				quads = append(quads, *types.NewQuadLiteralForRect(r))
				texts = append(texts, pg.Lines[li].Text)
				u = types.NewRectangle(min(u.LL.X, r.LL.X), min(u.LL.Y, r.LL.Y), max(u.UR.X, r.UR.X), max(u.UR.Y, r.UR.Y))
			}
			if rng.Intn(5) == 0 {
				comment = "" // a highlight without a comment
			}
			kd := kinds[rng.Intn(len(kinds))]
			col := color.SimpleColor{R: 1, G: 1, B: 0}
			ann := model.NewTextMarkupAnnotation(kd.typ, *u, 0, comment, fmt.Sprintf("m%d", id), "", 0, &col, 0, 0, 0, "Reader", nil, nil, "", "", quads)
			m[n] = append(m[n], ann)
			fx.marks = append(fx.marks, truth{page: n, kind: kd.kind, text: strings.Join(texts, " "), comment: comment})
		}
	}
	if len(m) == 0 {
		fx.skipped = "no page to mark"
		return fx
	}
	f, err := os.CreateTemp("", "markeval-*.pdf")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		log.Fatal(err)
	}
	if err := api.AddAnnotationsMapAsIncrement(f, m, conf); err != nil {
		fx.skipped = "pdfcpu cannot annotate it: " + err.Error()
		return fx
	}
	if fx.data, err = os.ReadFile(f.Name()); err != nil {
		log.Fatal(err)
	}
	return fx
}

// pickLine picks a line of running text (four words or more, mostly
// letters) that no mark covers yet, or -1.
func pickLine(pg pdf.Page, rng *rand.Rand, used map[int]bool) int {
	for try := 0; try < 40; try++ {
		i := rng.Intn(len(pg.Lines))
		l := pg.Lines[i]
		if used[i] || l.Annot != "" || len(strings.Fields(l.Text)) < 4 || letters(l.Text) < len(l.Text)/2 {
			continue
		}
		return i
	}
	return -1
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// pageWord is a word of five letters or more from text, for a comment.
func pageWord(text string, rng *rand.Rand) string {
	var ws []string
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		if len(w) >= 5 && letters(w) == len(w) && !textnorm.Stopword(strings.ToLower(w)) {
			ws = append(ws, strings.ToLower(w))
		}
	}
	if len(ws) == 0 {
		return "this result"
	}
	return ws[rng.Intn(len(ws))]
}

func sameColumn(a, b pdf.Line) bool {
	d := b.Box.Y - (a.Box.Y + a.Box.H)
	return b.Annot == "" && abs(a.Box.X-b.Box.X) < 0.02 && d > -a.Box.H/2 && d < a.Box.H && len(strings.Fields(b.Text)) >= 2
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// userRect is a line's box (0–1 of the displayed page, origin top-left) in
// default user space, a point larger on every side.
func userRect(pg pdf.Page, box *types.Rectangle, b pdf.Box) *types.Rectangle {
	w, h := box.Width(), box.Height()
	return types.NewRectangle(box.LL.X+b.X*w-1, box.UR.Y-(b.Y+b.H)*h-1, box.LL.X+(b.X+b.W)*w+1, box.UR.Y-b.Y*h+1)
}

// measure reads a copy back and counts its marks against what was added.
func measure(fx *fixture, c *counts) {
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(fx.data), int64(len(fx.data)), nil)
	if err != nil {
		log.Fatalf("%s: annotated copy unreadable: %v", fx.name, err)
	}
	c.files++
	c.truths += len(fx.marks)
	var got []pdf.Mark
	var pages []int
	for _, p := range doc.Pages {
		for _, m := range p.Marks {
			got = append(got, m)
			pages = append(pages, p.Number)
		}
	}
	c.returned += len(got)
	matched := make([]bool, len(got))
	for _, t := range fx.marks {
		hit := false
		for i, m := range got {
			if matched[i] || pages[i] != t.page || m.Kind != t.kind || m.Comment != t.comment {
				continue
			}
			if t.text != "" && textnorm.WordF1(m.Text, t.text) < 0.9 || t.text == "" && m.Text != "" {
				continue
			}
			matched[i] = true
			c.found++
			hit = true
			break
		}
		if !hit && os.Getenv("MARKEVAL_DEBUG") != "" {
			log.Printf("%s: missed %+v", fx.name, t)
		}
	}
	for i, m := range got {
		if !matched[i] {
			if os.Getenv("MARKEVAL_DEBUG") != "" {
				log.Printf("%s: false mark on page %d %+v", fx.name, pages[i], m)
			}
			c.falseMarks++
			if m.Kind == "link" {
				c.links++
			}
		}
	}
}

// turnChars is the turn budget of the searches: the most a turn may have.
var turnChars = grant.MaxBudget().TurnChars

// search puts each split's copies in a vault as papers, grants them all,
// and searches for each comment's words.
func search(fixtures []*fixture, res map[bool]*counts) {
	for _, held := range []bool{false, true} {
		root, err := os.MkdirTemp("", "markeval-vault-")
		if err != nil {
			log.Fatal(err)
		}
		var refs []string
		for _, fx := range fixtures {
			if fx.held != held {
				continue
			}
			ref := "papers/" + strings.TrimSuffix(fx.name, ".pdf")
			dir := filepath.Join(root, filepath.FromSlash(ref))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				log.Fatal(err)
			}
			meta, _ := json.Marshal(map[string]string{"title": fx.name})
			if err := os.WriteFile(filepath.Join(dir, "metadata.json"), meta, 0o644); err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fx.name), fx.data, 0o644); err != nil {
				log.Fatal(err)
			}
			refs = append(refs, ref)
		}
		for _, folder := range []bool{false, true} {
			mentions := refs
			if folder {
				mentions = []string{"papers"}
			}
			searchGrant(root, mentions, fixtures, held, folder, res)
		}
		os.RemoveAll(root)
	}
}

// searchGrant searches every comment of the split's fixtures under a grant
// of mentions (the papers, or their folder), counting the searches whose
// first three cards hold the mark's page.
func searchGrant(root string, mentions []string, fixtures []*fixture, held, folder bool, res map[bool]*counts) {
	var r researchctx.Resolver
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: root, RuntimeID: "markeval", TurnID: "t", Mentions: mentions,
		Budget: &grant.BudgetOverrides{TurnChars: &turnChars}})
	if err != nil {
		log.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		log.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, fx := range fixtures {
		if fx.held != held {
			continue
		}
		pdfPath := "papers/" + strings.TrimSuffix(fx.name, ".pdf") + "/" + fx.name
		for _, t := range fx.marks {
			if t.comment == "" {
				continue
			}
			if !folder {
				res[held].queries++
			}
			out, err := ts.Search(context.Background(), tools.SearchInput{Query: t.comment, Limit: 3})
			if err != nil {
				log.Printf("search %q: %v", t.comment, err)
				continue
			}
			for _, c := range out.Cards {
				if c.Path == pdfPath && c.Page == t.page {
					if folder {
						res[held].folderFirst3++
					} else {
						res[held].first3++
					}
					break
				}
			}
		}
	}
	ts.Close()
	r.Close()
}
