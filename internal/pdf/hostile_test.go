package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// outcome summarises an extraction for the hostile suite: the document's
// error, or the limits its pages hit.
func outcome(d *Document, err error) string {
	var le *LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Sprintf("document: %s", le.Limit)
	case err != nil:
		return fmt.Sprintf("document: %v", err)
	}
	counts := map[string]int{}
	var order []string
	for _, p := range d.Pages {
		k := "text"
		switch {
		case errors.As(p.Err, &le):
			k = string(le.Limit)
		case p.Err != nil:
			k = "error"
		case p.NoTextLayer:
			k = "no text"
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	s := ""
	for i, k := range order {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", counts[k], k)
	}
	return "pages: " + s
}

// hostileWant is the outcome each hostile case must end in.
var hostileWant = map[string]string{
	"content arrays nested 1M deep":              "pages: 1 nesting depth",
	"content dictionaries nested 1M deep":        "pages: 1 nesting depth",
	"content arrays nested 30M deep, compressed": "pages: 1 nesting depth",
	// pdfcpu stops at MaxObjectNesting and, in its relaxed mode, drops the
	// object: here the only page.
	"object arrays nested 1M deep":                     "document: pdf: malformed: no pages",
	"object dictionaries nested 100k deep":             "document: pdf: malformed: no pages",
	"object arrays nested 1M deep in an object stream": "pages: 1 text",
	"operand stack flood":                              "pages: 1 operands per operator",
	"text bomb, one page":                              "pages: 1 glyphs per page",
	"text bomb, 400 pages":                             "pages: 50 glyphs per page, 350 glyphs per document",
	"2000 pages":                                       "pages: 2000 text",
	"2000 pages sharing one text stream":               "pages: 50 glyphs per page, 1950 glyphs per document",
	"Flate bomb, 1 GiB of zeros":                       "pages: 1 decoded bytes per stream",
	"huge stream, 40 MB":                               "pages: 1 decoded bytes per stream",
	"40 pages sharing a 30 MB stream":                  "pages: 17 no text, 23 decoded bytes per document",
	"form drawing itself":                              "pages: 1 form XObject nesting",
	"form fan-out":                                     "pages: 1 decoded bytes per page",
	"name tree listing itself as its kids":             "pages: 1 text",
	"large file, 120 MB":                               "pages: 1 text",
	"large file, 120 MB, no cross-reference table":     "pages: 1 text",
	"broken xref over 8 object-stream bombs of 30 MB":  "pages: 1 text",
	"TrueType cmap of 2000 huge unassigned groups":     "pages: 1 text",
	// Cross-references that list more than the file holds are rebuilt
	// from the objects the file has, as a broken one is.
	"xref stream of 4M entries":                        "pages: 1 text",
	"xref stream of 500k entries":                      "pages: 1 text",
	"xref stream of 4M free entries":                   "pages: 1 text",
	"object stream claiming 4M objects":                "pages: 1 text",
	"classic xref claiming 4M objects":                 "pages: 1 text",
	"xref listing one 100 kB object 4000 times":        "pages: 1 text",
	"200 pages of 2000 annotations of 1000 characters": "pages: 50 glyphs per page, 150 glyphs per document",
	"65,000 small objects":                             "pages: 1 text",
	// Over MaxObjects, honest or not, with a table or without one.
	"300,000 small objects":                           "document: objects per file",
	"300,000 small objects, no cross-reference table": "document: objects per file",
}

// maxHostileRSS is the bound on the peak resident set of a process
// extracting any single input.
const maxHostileRSS = 300 << 20

// TestHostileContent extracts each hostile document in a child process
// (this test binary, reading the file as the SDK does) and checks that the
// child survives, ends in the expected limit, and stays under
// maxHostileRSS. A stack overflow is a fatal error that no recover
// catches, so only a separate process can show that none happens.
func TestHostileContent(t *testing.T) {
	if path := os.Getenv("PDF_HOSTILE_FILE"); path != "" {
		hostileChild(path)
		return
	}
	if testing.Short() {
		t.Skip("builds and extracts about 50 MB of hostile PDFs")
	}
	for _, c := range hostilepdf.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := hostileWant[c.Name]
			if !ok {
				t.Fatalf("no expected outcome for %q", c.Name)
			}
			r := runHostile(t, c)
			if r.Outcome != want {
				t.Errorf("outcome = %q, want %q", r.Outcome, want)
			}
			if r.RSS < 0 {
				t.Logf("no peak RSS from the child")
				return
			}
			t.Logf("peak RSS %d MB", r.RSS>>20)
			if r.RSS > maxHostileRSS {
				t.Errorf("peak RSS %d MB, over %d MB", r.RSS>>20, maxHostileRSS>>20)
			}
		})
	}
}

// hostileRun is what the child extracting a hostile document reports:
// the outcome through the SDK's path and its peak RSS, then, for a file
// the lazy reader served, the outcome through pdfcpu alone
// (TestLazyHostile compares them).
type hostileRun struct {
	Size    int64 // the file's
	Outcome string
	RSS     int64 // -1 where not known
	// Lazy is whether the lazy reader served the file ("served"), gave it
	// up ("given up"), or was not tried (""), and LazyTook its time.
	Lazy     string
	LazyTook time.Duration
	// Pdfcpu and PdfcpuTook are the outcome and time through pdfcpu alone,
	// without a time limit, once the peak RSS is taken.
	Pdfcpu     string
	PdfcpuTook time.Duration
	// Pages is the number of pages read through the SDK's path, and First
	// and Last the limits the first and the last hit
	// (TestLimitsKeepEarlierPages checks them).
	Pages       int
	First, Last pageLimit
}

// pageLimit is the *LimitError of a page, if it failed with one.
type pageLimit struct {
	Limit    Limit
	Page     int
	TooLarge bool // errors.Is ErrTooLarge
}

// pageLimitOf returns the *LimitError of p's error, if any.
func pageLimitOf(p Page) pageLimit {
	var le *LimitError
	if !errors.As(p.Err, &le) {
		return pageLimit{}
	}
	return pageLimit{le.Limit, le.Page, errors.Is(p.Err, ErrTooLarge)}
}

// hostileRuns holds the children's reports by case name: TestHostileContent
// and TestLazyHostile both check each case's one extraction through the
// SDK's path, which for the costly cases takes seconds of CPU.
var hostileRuns struct {
	sync.Mutex
	m map[string]*hostileRun
}

// runHostile extracts the case in a child process, once per test binary,
// and returns the child's report; it ends the test when the child fails.
func runHostile(t *testing.T, c hostilepdf.Case) *hostileRun {
	t.Helper()
	hostileRuns.Lock()
	defer hostileRuns.Unlock()
	if r, ok := hostileRuns.m[c.Name]; ok {
		if r == nil {
			t.Fatal("child process failed (reported by the first test to run it)")
		}
		return r
	}
	if hostileRuns.m == nil {
		hostileRuns.m = map[string]*hostileRun{}
	}
	hostileRuns.m[c.Name] = nil // a failure is reported once, in full
	path := filepath.Join(t.TempDir(), "case.pdf")
	if err := os.WriteFile(path, c.Make(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileContent$")
	cmd.Env = append(os.Environ(), "PDF_HOSTILE_FILE="+path)
	if !testing.Short() { // TestLazyHostile's comparison; it does not run with -short
		cmd.Env = append(cmd.Env, "PDF_HOSTILE_PDFCPU=1")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child process: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	r := &hostileRun{}
	if err := json.Unmarshal(stdout.Bytes(), r); err != nil {
		t.Fatalf("child's report: %v\n%s", err, lastLines(stdout.String(), 5))
	}
	hostileRuns.m[c.Name] = r
	return r
}

// hostileChild extracts the file at path through an *os.File, as the SDK
// does, then, when the lazy reader served it and PDF_HOSTILE_PDFCPU is
// set, through pdfcpu alone; prints its hostileRun in JSON and exits.
func hostileChild(path string) {
	fail := func(err error) {
		fmt.Println(err)
		os.Exit(2)
	}
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		fail(err)
	}
	r := hostileRun{Size: fi.Size()}
	lazyExtract = func(ctx context.Context, data []byte, o Options) (*Document, bool) {
		start := time.Now()
		d, ok := extractLazy(ctx, data, o)
		r.LazyTook = time.Since(start)
		r.Lazy = map[bool]string{true: "served", false: "given up"}[ok]
		return d, ok
	}
	d, err := Extract(context.Background(), f, fi.Size(), nil)
	r.Outcome = outcome(d, err)
	r.RSS = hostilepdf.PeakRSS()
	if err == nil && len(d.Pages) > 0 {
		r.Pages = len(d.Pages)
		r.First, r.Last = pageLimitOf(d.Pages[0]), pageLimitOf(d.Pages[len(d.Pages)-1])
	}
	if r.Lazy == "served" && os.Getenv("PDF_HOSTILE_PDFCPU") != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		lazyObjects = false
		start := time.Now()
		// No time limit for the comparison on a loaded machine.
		pc, perr := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), &Options{Timeout: time.Hour})
		r.PdfcpuTook = time.Since(start)
		r.Pdfcpu = outcome(pc, perr)
	}
	out, err := json.Marshal(r)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(out))
	os.Exit(0)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// TestTimeLimit checks the two ways extraction stops on time: its own
// limit, a property of the file that the cache remembers (ErrTooLarge,
// LimitTime), and the caller's context, which is not (ErrTimeout).
func TestTimeLimit(t *testing.T) {
	data := hostilepdf.ManyPages(400)
	_, err := extractBytes(t, data, &Options{Timeout: 20 * time.Millisecond})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitTime || !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTimeout) {
		t.Errorf("own time limit: err = %v, want a LimitTime *LimitError", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = Extract(ctx, bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrTooLarge) {
		t.Errorf("caller's deadline: err = %v, want ErrTimeout", err)
	}
}

// TestLimitsKeepEarlierPages checks that a document-wide budget spent part
// way keeps the pages before it and fails every later one with it. The
// document is the hostile case "text bomb, 400 pages", read through the
// SDK's path in its child (runHostile): seconds of CPU, spent once.
func TestLimitsKeepEarlierPages(t *testing.T) {
	i := slices.IndexFunc(hostilepdf.Cases(), func(c hostilepdf.Case) bool { return c.Name == "text bomb, 400 pages" })
	if i < 0 {
		t.Fatal("no hostile case \"text bomb, 400 pages\"")
	}
	r := runHostile(t, hostilepdf.Cases()[i])
	if r.First.Limit != LimitGlyphs || r.First.Page != 1 {
		t.Errorf("page 1: %+v, want the glyphs-per-page limit", r.First)
	}
	if want := (pageLimit{LimitDocGlyphs, r.Pages, true}); r.Last != want {
		t.Errorf("last page: %+v, want the glyphs-per-document limit (%+v)", r.Last, want)
	}
}

// TestObjectStreamNesting checks that the object-stream fixture is read by
// pdfcpu (a shallow one dereferences to its nested arrays) and that a deep
// one meets pdfcpu's recursion limit rather than the stack's end.
func TestObjectStreamNesting(t *testing.T) {
	for _, tt := range []struct {
		depth    int
		wantFail bool
	}{{10, false}, {MaxObjectNesting + 10, true}, {1 << 20, true}} {
		data := hostilepdf.DeepObjectStream(tt.depth)
		pc, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(data), newConfig((&Options{}).withDefaults(), int64(len(data))))
		if err != nil {
			t.Fatalf("depth %d: reading: %v", tt.depth, err)
		}
		o, err := pc.XRefTable.Dereference(types.IndirectRef{ObjectNumber: 7})
		switch {
		case tt.wantFail && !errors.Is(err, model.ErrMaxRecursionDepthExceeded):
			t.Errorf("depth %d: err = %v, want pdfcpu's recursion limit", tt.depth, err)
		case !tt.wantFail && err != nil:
			t.Errorf("depth %d: %v", tt.depth, err)
		case !tt.wantFail:
			n := 0
			for a, ok := o.(types.Array); ok && len(a) > 0; a, ok = a[0].(types.Array) {
				n++
			}
			if n != tt.depth-1 {
				t.Errorf("depth %d: %d nested arrays read", tt.depth, n)
			}
		}
	}
}

// TestNameTreeCycle checks that a name tree whose kids repeat and cycle is
// read node by node: the 1,000 bookmarks are all read (each to an unknown
// destination) without walking the tree's 8^32 paths.
func TestNameTreeCycle(t *testing.T) {
	d := mustExtract(t, hostilepdf.NameTreeCycle(1000))
	if len(d.Outline) != 1000 {
		t.Fatalf("%d outline items, want 1000", len(d.Outline))
	}
	for _, it := range d.Outline {
		if it.Page != 0 {
			t.Fatalf("%+v: destination page %d, want unknown", it, it.Page)
		}
	}
}

// TestPageLabelOrder checks the one-pass label ranges: ranges listed out
// of order are sorted, and of two ranges starting on one page the later
// listed wins.
func TestPageLabelOrder(t *testing.T) {
	pages := []page{{content: "BT /F1 10 Tf 72 700 Td (a) Tj ET"}, {content: "BT /F1 10 Tf 72 700 Td (b) Tj ET"}, {content: "BT /F1 10 Tf 72 700 Td (c) Tj ET"}}
	d := mustExtract(t, simpleDoc(pages, "/PageLabels << /Nums [2 << /S /D /St 10 >> 0 << /S /r >> 2 << /S /A >>] >>", "", nil))
	if diff := cmp.Diff([]string{"i", "ii", "A"}, d.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}
