package usage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/researchctx/researchctx/cite"

	"github.com/researchctx/researchctx/grant"
)

// Line is one line of usage.jsonl: one tool call of one turn.
type Line struct {
	At     time.Time `json:"at"`
	TurnID string    `json:"turnId"`
	Tool   string    `json:"tool"`
	URIs   []string  `json:"uris"`
	// Same lists sets of locators that name one work: a library paper's
	// PDF and its DOI and arXiv links, as a relation card or a metadata
	// read names them. A reader folds the URIs of a set into one source
	// (see Used.Locators); a locator of a set need not be in URIs.
	Same [][]string `json:"same,omitempty"`
	// Granted lists the URIs of the line in a connector's own namespace
	// (a Zotero item's zotero:// URI, see Connector) that name a document
	// of a granted source, as the call that handed them out found it. Such
	// a URI's path cannot say whether the grant holds it (a granted
	// collection holds items named outside its own path), so a reader
	// places it in the grant only when a line of the turn lists it here.
	Granted []string `json:"granted,omitempty"`
	Chars   int      `json:"chars"`
	// Settles names the reservation (see Log) this call was built
	// within; empty for a line written without one.
	Settles string `json:"settles,omitempty"`
}

// maxUsageLine bounds one line so the append stays a single small write. A
// longer line in the file is skipped without being held in memory.
const maxUsageLine = 1 << 20

// marshalUsage encodes a usage line, newline included.
func marshalUsage(l Line) ([]byte, error) {
	if l.At.IsZero() {
		l.At = time.Now()
	}
	l.At = l.At.UTC()
	if l.URIs == nil {
		l.URIs = []string{}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	if len(data) >= maxUsageLine {
		return nil, fmt.Errorf("usage line of %d bytes is too long", len(data))
	}
	return append(data, '\n'), nil
}

// Turn is what a turn used, read back from usage.jsonl.
type Turn struct {
	Calls   int    // tool calls of the turn
	Chars   int    // text characters returned to the agent, summed (saturating)
	Sources []Used // distinct citation URIs, in order of first use
	Skipped int    // lines of the file that could not be read (torn or corrupt)
	Lines   []Line // the turn's lines, in the order they were appended
}

// Use is how a source reached the agent in a turn.
type Use string

// The uses of a source, strongest first.
const (
	UseRead     Use = "read"     // context_read returned its text
	UseSearched Use = "searched" // a context_search card
	UseRelated  Use = "related"  // a card of paper_relations
)

// Place is where a used source lies, seen from the turn's scope.
type Place string

// The places of a used source.
const (
	InGrant   Place = "grant"   // inside one of the granted sources
	InLibrary Place = "library" // a Vault path or a connector's document outside the grant (a related paper's card)
	Outside   Place = "outside" // a link out of the Vault (a DOI or arXiv page)
)

// Used is one source of a turn: a citation URI, how it reached the agent
// and where it lies. A host draws it as a locator: Use and Place decide the
// group and the badge.
type Used struct {
	URI string `json:"uri"`
	// Use is the strongest use over the turn: read, else searched, else
	// related.
	Use Use `json:"use"`
	// Tools are the tools that returned the URI, in order of first use.
	Tools []string `json:"tools"`
	Place Place    `json:"place"`
	// Locators, set when the work was reached by more than one URI (a
	// library paper's PDF and its DOI or arXiv link), lists them all, URI
	// first, then in order of first use. URI is the Vault one when there
	// is one.
	Locators []string `json:"locators,omitempty"`
}

// URIs returns the distinct citation URIs of the turn, in order of first
// use.
func (u Turn) URIs() []string {
	out := make([]string, len(u.Sources))
	for i, s := range u.Sources {
		out[i] = s.URI
	}
	return out
}

// Groups are a turn's sources grouped the way a host draws them: what the
// agent read, what it only saw as a search card, what it only saw as a
// relation card; each in order of first use.
type Groups struct {
	Read     []Used `json:"read"`
	Searched []Used `json:"searched"`
	Related  []Used `json:"related"`
}

// Groups returns the turn's sources by their strongest use.
func (u Turn) Groups() Groups {
	g := Groups{Read: []Used{}, Searched: []Used{}, Related: []Used{}}
	for _, s := range u.Sources {
		switch s.Use {
		case UseRead:
			g.Read = append(g.Read, s)
		case UseSearched:
			g.Searched = append(g.Searched, s)
		default:
			g.Related = append(g.Related, s)
		}
	}
	return g
}

// useOf is the use a tool's result gives its URIs.
func useOf(tool string) Use {
	switch tool {
	case grant.ToolRead:
		return UseRead
	case grant.ToolSearch:
		return UseSearched
	}
	return UseRelated
}

// stronger reports whether use a outranks b.
func stronger(a, b Use) bool {
	rank := func(u Use) int {
		switch u {
		case UseRead:
			return 3
		case UseSearched:
			return 2
		case UseRelated:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// placeOf says where a citation URI lies: a DOI or arXiv link is Outside, a
// Vault path the scope covers is InGrant, a connector's URI (see Connector)
// is InGrant when a line of the turn listed it as granted and the scope
// grants a source of its kind, any other InLibrary. With no scope every
// path is InLibrary.
func placeOf(uri string, scope *grant.Scope, granted map[string]bool) Place {
	u, err := cite.Parse(uri)
	if err == nil && (u.DOI != "" || u.ArXiv != "") {
		return Outside
	}
	if scope == nil {
		return InLibrary
	}
	if p, ok := connectorPath(uri); ok {
		if granted[uri] && connectorGranted(p, scope) {
			return InGrant
		}
		return InLibrary
	}
	p := u.Path
	if err != nil {
		// Another locator: its path is what precedes the fragment.
		p, _, _ = strings.Cut(uri, "#")
	}
	if scope.Covers(p) {
		return InGrant
	}
	return InLibrary
}

// Connector reports whether uri is a connector's own locator — a Zotero
// item's zotero:// URI, or a path "kind:…" in a source kind's namespace —
// whose place in the grant only the call that handed it out knows (see
// Line.Granted).
func Connector(uri string) bool {
	_, ok := connectorPath(uri)
	return ok
}

// connectorPath returns the document path of a connector's locator: what
// Parse decodes a Zotero URI to, or, for a locator Parse refuses, what
// precedes its fragment, when it is in a kind's namespace.
func connectorPath(uri string) (string, bool) {
	p := ""
	if u, err := cite.Parse(uri); err == nil {
		if !cite.IsZotero(u.Path) {
			return "", false
		}
		p = u.Path
	} else {
		p, _, _ = strings.Cut(uri, "#")
	}
	kind, _, ok := strings.Cut(p, ":")
	if !ok || !grant.Kind(kind).Valid() {
		return "", false
	}
	return p, true
}

// connectorGranted reports whether the scope grants a source in the
// namespace of the document path p ("kind:…").
func connectorGranted(p string, scope *grant.Scope) bool {
	kind, _, _ := strings.Cut(p, ":")
	for _, r := range scope.Sources {
		if string(r.Kind) == kind && strings.HasPrefix(r.Path, kind+":") {
			return true
		}
	}
	return false
}

// Read reads the usage log at path and sums the lines of one turn:
// calls, characters, and each citation URI with the tools that returned it.
// scope, when not nil, is the turn's scope (a Plan's or a Grant's): it
// places each source in the grant or in the library; nil places every Vault
// path in the library. A missing file is an empty Turn. Torn or corrupt
// lines are skipped and counted in Skipped, never fatal; reservation
// records (see Log) are not calls and are passed over. Sums saturate
// at the largest int.
func Read(path, turnID string, scope *grant.Scope) (Turn, error) {
	var u Turn
	f, err := openUsage(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, err
	}
	defer f.Close()
	if err := checkUsageRead(f, 0); err != nil {
		return u, err
	}
	_, err = scanUsage(f, func(line []byte, ok bool) {
		if !ok {
			u.Skipped++
			return
		}
		rec, kind := parseUsage(line)
		switch {
		case kind == recBlank, kind == recReserve, kind == recRelease:
		case kind == recCorrupt:
			u.Skipped++
		case rec.TurnID == turnID:
			u.Calls++
			u.Chars = addChars(u.Chars, rec.Chars)
			u.Lines = append(u.Lines, Line{At: rec.At, TurnID: rec.TurnID, Tool: rec.Tool, URIs: rec.URIs, Same: rec.Same, Granted: rec.Granted, Chars: rec.Chars})
		}
	})
	if err != nil {
		return u, fmt.Errorf("reading the usage log: %w", err)
	}
	u.Sources = sourcesOf(u.Lines, scope)
	return u, nil
}

// sourcesOf sums the URIs of a turn's lines into its sources, in order of
// first use: each with its strongest use and the tools that returned it.
// URIs a line's Same names as one work are one source.
func sourcesOf(lines []Line, scope *grant.Scope) []Used {
	// The works: every URI points to the first URI of its set (union-find).
	parent := map[string]string{}
	var root func(string) string
	root = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := root(p)
		parent[x] = r
		return r
	}
	for _, l := range lines {
		for _, set := range l.Same {
			first := ""
			for _, uri := range set {
				switch {
				case uri == "":
				case first == "":
					first = root(uri)
				default:
					if r := root(uri); r != first {
						parent[r] = first
					}
				}
			}
		}
	}
	granted := map[string]bool{}
	for _, l := range lines {
		for _, uri := range l.Granted {
			granted[uri] = true
		}
	}
	var out []Used
	seen := map[string]int{} // work → index in out
	for _, l := range lines {
		use := useOf(l.Tool)
		for _, uri := range l.URIs {
			if uri == "" {
				continue
			}
			w := root(uri)
			i, ok := seen[w]
			if !ok {
				seen[w] = len(out)
				out = append(out, Used{URI: uri, Use: use, Tools: []string{l.Tool}, Place: placeOf(uri, scope, granted)})
				continue
			}
			s := &out[i]
			if stronger(use, s.Use) {
				s.Use = use
			}
			if !slices.Contains(s.Tools, l.Tool) {
				s.Tools = append(s.Tools, l.Tool)
			}
			if uri != s.URI && !slices.Contains(s.Locators, uri) {
				if len(s.Locators) == 0 {
					s.Locators = []string{s.URI}
				}
				s.Locators = append(s.Locators, uri)
			}
		}
	}
	// A work reached by a Vault path and by a link is named by its path.
	for i := range out {
		s := &out[i]
		if s.Place != Outside {
			continue
		}
		for j, loc := range s.Locators {
			if p := placeOf(loc, scope, granted); p != Outside {
				s.URI, s.Place = loc, p
				s.Locators = append([]string{loc}, slices.Delete(slices.Clone(s.Locators), j, j+1)...)
				break
			}
		}
	}
	return out
}

// usageRecord is any line of usage.jsonl: a call (Line's fields), a
// reservation, or the release of one.
type usageRecord struct {
	At      time.Time      `json:"at"`
	TurnID  string         `json:"turnId"`
	Tool    string         `json:"tool"`
	URIs    []string       `json:"uris"`
	Same    [][]string     `json:"same"`
	Granted []string       `json:"granted"`
	Chars   int            `json:"chars"`
	Settles string         `json:"settles"`
	Reserve *reserveRecord `json:"reserve"`
	Release string         `json:"release"`
}

// reserveRecord is the body of a reservation line. Its fields are nested
// under "reserve" so a reader that sums the top-level chars of a turn's
// lines, as docs/contract.md §6 describes, never counts a reservation.
type reserveRecord struct {
	ID     string `json:"id"`
	TurnID string `json:"turnId"`
	Chars  int    `json:"chars"`
	PID    int    `json:"pid"`
	Host   string `json:"host"`
}

type recKind int

const (
	recBlank recKind = iota
	recCorrupt
	recCall
	recReserve
	recRelease
)

// parseUsage classifies one complete line.
func parseUsage(line []byte) (usageRecord, recKind) {
	var r usageRecord
	if len(bytes.TrimSpace(line)) == 0 {
		return r, recBlank
	}
	if json.Unmarshal(line, &r) != nil {
		return r, recCorrupt
	}
	switch {
	case r.Tool != "":
		if r.Chars < 0 {
			return r, recCorrupt
		}
		return r, recCall
	case r.Reserve != nil && r.Reserve.ID != "" && r.Reserve.Chars >= 0:
		return r, recReserve
	case r.Release != "":
		return r, recRelease
	}
	return r, recCorrupt
}

// scanUsage calls fn for every line of r: a complete line with ok true, a
// line longer than maxUsageLine (skipped, never held whole) or a torn last
// line with ok false. It returns the bytes consumed up to the end of the
// last complete line, so a torn last line is read again next time.
func scanUsage(r io.Reader, fn func(line []byte, ok bool)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var consumed, pending int64 // pending: bytes of the unfinished line
	var buf []byte              // the unfinished line, when it spans reads
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		pending += int64(len(chunk))
		if !tooLong {
			if pending > maxUsageLine {
				tooLong, buf = true, nil
			} else if err != nil || buf != nil {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			switch {
			case tooLong:
				fn(nil, false)
			case buf != nil:
				fn(buf, true)
			default:
				fn(chunk, true)
			}
			consumed += pending
			pending, buf, tooLong = 0, nil, false
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			if pending > 0 {
				fn(nil, false)
			}
			return consumed, nil
		default:
			return consumed, err
		}
	}
}

// addChars adds n to sum, saturating at the largest int; a negative n adds
// nothing. A forged or corrupt usage log can make the sum large, never wrap
// it to a small number.
func addChars(sum, n int) int {
	if n <= 0 {
		return sum
	}
	if sum > math.MaxInt-n {
		return math.MaxInt
	}
	return sum + n
}
