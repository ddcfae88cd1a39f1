// Package sources defines what the context tools can read: a small Source
// interface that every granted source implements, optional capability
// interfaces for what only some sources can do, the errors every source
// maps its failures to, and the registry of drivers that open sources by
// kind. It holds no implementation: the Vault's papers, directories and
// files are opened by package sources/vault, a driver like any other, and
// package sources/sourcetest checks a Source and holds one in memory.
//
// The grant's Vault is a Library: package sources/vault registers its
// opener (Registry.RegisterLibrary), and package tools opens it with
// Registry.OpenLibrary, never naming the Vault's driver. The kinds
// registered with it are the library's own (Registry.LibraryKind), whose
// errors are the SDK's; every other kind is a connector's.
//
// The shape follows io/fs and database/sql/driver. A Source says who it is
// (Info), finds passages (Search) and hands out the text of one of its
// documents (Read). Richer behaviour lives in optional interfaces that
// callers discover with a type assertion: Describer (bibliographic
// metadata), Lister (directory entries), PageReader (some pages of a
// document only), RegionReader (layout regions of a paper), MarkReader (a
// document's highlights and notes), Relater (a paper's citations),
// Container (sources inside a source) and Holder (documents named outside
// the source's own path). Everything that must be the same for every source — budgets,
// truncation, citation URIs, grant checks, the usage log — lives once in
// package tools, never in a Source: sources return text with locations,
// and tools decides how much of it the agent may see.
//
// A connector for another library (Zotero, say) implements Source in its own
// package, runs the conformance checks of package sources/sourcetest, and
// registers a Driver for its kind (Register, Registry): the resolver then
// grants what a "kind:name" mention names, and the server re-opens it from
// the grant. No change to tools or mcp is needed. It imports this package
// and package grant (the Ref a source is opened from) only: what it may use
// of the grant's Vault is in its Env (its Documents).
package sources

import (
	"context"
	"errors"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/safefs"
)

// Errors a Source returns (wrapped) and callers branch on. Messages name
// vault-relative paths only.
var (
	// ErrNotFound: the document, page, section or region does not exist.
	// It is the one "not found" of the SDK: the tools, the Vault and
	// every connector wrap it.
	ErrNotFound = errors.New("not found")
	// ErrOutside: the path is not part of this source.
	ErrOutside = errors.New("not part of this source")
	// ErrNotText: the file is binary or not UTF-8 text.
	ErrNotText = errors.New("not a text file")
	// ErrNoTextLayer: a PDF page has no text layer (an image-only scan).
	ErrNoTextLayer = errors.New("no text layer")
	// ErrUnsupported: the source cannot do this (no such capability).
	ErrUnsupported = errors.New("not supported by this source")
	// ErrIsDirectory: Read was given a folder; list it instead.
	ErrIsDirectory = errors.New("is a directory")
	// ErrUnreadable: the document is there but its text cannot be
	// extracted: a damaged or encrypted PDF, or one over an extraction
	// limit. The error also wraps the extractor's own reason.
	ErrUnreadable = errors.New("unreadable document")
	// ErrTooLarge: a document is above its source's size cap (a Vault
	// text file above 2 MiB, say); a search leaves it out and reports
	// Results.Truncated.
	ErrTooLarge = safefs.ErrTooLarge
)

// Info identifies a source.
type Info struct {
	Path  string // vault-relative path (or a connector's own id); unique in a grant
	Kind  grant.Kind
	Title string
}

// Source is one readable, searchable source of a grant. Implementations
// must be safe for concurrent use.
type Source interface {
	// Info returns the source's identity.
	Info() Info
	// Search returns this source's passages that match q, best first. A
	// search that answers before the source's documents are all indexed
	// sets Results.Indexing (and Truncated); once they are, identical
	// searches give identical hits.
	Search(ctx context.Context, q Query) (*Results, error)
	// Read returns one document of the source as located parts. path ""
	// means the source's main document (a paper's PDF, or the file of a
	// file source); otherwise path is a vault-relative path inside the
	// source (a file in a directory, a paper's NOTES.md).
	//
	// A path outside the source (not Info().Path and not below it) is an
	// error wrapping ErrOutside. A path below Info().Path that names no document
	// of the source wraps ErrNotFound — also for a source of one document:
	// "note.md/x" under a note source is not found, not outside. Only a
	// Vault file source (grant.KindFile, whose Path is a file, which has
	// nothing below it) may answer ErrOutside there; package sourcetest
	// checks both.
	Read(ctx context.Context, path string) (*Document, error)
}

// Query is a search request to one source.
type Query struct {
	Text  string // the user's or agent's words
	Limit int    // how many hits at most (> 0)
	// ScanFiles caps how many files a directory search may read; 0 means
	// the source's own default.
	ScanFiles int
	// ExcerptChars is the card size: a source that can pick the best
	// passage of a hit sets Hit.Excerpt to at most this many characters.
	ExcerptChars int
	// Collection, when set, is the documents whose statistics a source
	// scores its hits with: a grant's, so that its sources' scores are
	// comparable. Without it a source counts its own documents only.
	Collection Collection
}

// A Collection is a set of documents a search's collection statistics are
// computed over, as the library that made it defines it (Library.Collection):
// a grant's. A source finds a Collection of its own driver's with As, as
// gocloud's blob does, and ignores any other, as it ignores none.
type Collection interface {
	// As reports whether the Collection is of the type target points to,
	// and if so sets *target to it: a driver passes a pointer to its own
	// collection type. Any other target gives false.
	As(target any) bool
}

// Results is what a search found.
type Results struct {
	Hits []Hit
	// Total counts everything that matched, which may exceed len(Hits):
	// more results exist than were returned.
	Total int
	// Truncated reports that the search did not look at everything, so
	// more might match than Total says: a scan cap was hit, a file was
	// too large to index, or the index was still being built (Indexing).
	// context_search reports it as partial, not as truncated (which there
	// means more results than cards).
	Truncated bool
	// Indexing, when set, says the search answered from what the
	// library's index held before its build ended: more might match
	// (Truncated is set too). A source whose documents are indexed in the
	// background must set it until every one is in, so that a partial
	// answer never looks complete; once they are, the same query gives
	// the same hits.
	Indexing *Indexing
	// Skipped lists the documents the search could not read — a damaged
	// or encrypted PDF, one over an extraction limit, an HTML page saved
	// as .pdf — so that no hit is not taken for "not there". Sorted by
	// path.
	Skipped []Skip
}

// Skip is a document a search could not read: its path, and why in a few
// words (one line, no parser internals).
type Skip struct {
	Path, Reason string
}

// Indexing is the progress of the library index's build: items done and
// queued. A search that answered while the index was still being built
// says how far it was (Results.Indexing); context_search passes it on
// as is (tools.SearchOutput.Indexing), left out when the index was
// complete.
type Indexing struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Hit is one matching passage. Text is the whole unit that matched (a PDF
// page, a text file, a section), verbatim; tools cut the excerpt from it.
type Hit struct {
	Location
	Title string // title of the document the unit is from
	Text  string // verbatim text of the matched unit
	// Excerpt, when set, is the passage of Text that best answers the
	// query (verbatim, at most Query.ExcerptChars characters); when empty
	// the caller picks one.
	Excerpt string
	// Score is in [0, 1], comparable across the sources of one
	// Collection for the same query (see Query.Collection).
	Score float64
	// OCR, when set, says the text was recognised from a page image.
	OCR *OCR
	// Continues, for a unit whose text runs on from Location into other
	// locations (a connector's chunk over a page break, say), says where:
	// each later location's text begins at byte Offset of Text, in order.
	// A card cites every location whose text its excerpt holds.
	Continues []Continuation
	// Mark, when set, says the unit is one of the researcher's marks: its
	// Kind, Text and Comment (its Location is the hit's). Text is then the
	// marked text, or the comment for a mark without one.
	Mark *Mark
}

// OCR marks text recognised from a page's image by an OCR engine.
type OCR struct {
	Confidence float64 // the engine's mean confidence in the words, 0–1
}

// Continuation is a location a hit's text runs on into, from byte Offset
// of the hit's Text.
type Continuation struct {
	Location
	Offset int
}

// Location says where text is. Path is always set for Vault sources; Page is
// a 1-based physical page (0 when not paged); Label is the printed page
// label where it differs from the physical number.
type Location struct {
	Path    string
	Page    int
	Label   string
	Section string
	Region  string
}

// Document is the text of one readable document, as parts in reading
// order: one part per PDF page, or a single part for a text file.
type Document struct {
	Path     string
	Title    string
	Pages    int // physical page count for a PDF, else 0
	Parts    []Part
	Sections []Section // headings in reading order, anchored in Parts
}

// Part is one located piece of a Document's text.
type Part struct {
	Location
	Text string
	// NoTextLayer marks an image-only page: Text is empty for that reason,
	// not because the page is blank.
	NoTextLayer bool
	// OCR, when set, says Text was recognised from the page's image (the
	// page has no text layer of its own).
	OCR *OCR
	// Note, on a NoTextLayer part, says in one line why the page's image
	// was not recognised ("no OCR: tesseract is not installed", the
	// engine's failure); empty when there was nothing to recognise.
	Note string
	// Err is set when this part could not be extracted; the rest of the
	// document still is.
	Err error
}

// Section is a heading, anchored at byte Offset of Parts[Part].Text. A
// section runs to the next heading of the same or a higher level.
type Section struct {
	Title  string
	Level  int // 1 = top level
	Page   int // 1-based page of the heading, 0 when not paged
	Part   int
	Offset int
}

// Metadata is bibliographic information about a source.
type Metadata struct {
	Title    string
	Authors  []string
	Year     int
	Abstract string
	DOI      string
	ArXivID  string
	Pages    int
	// OCRPages counts the pages whose text was recognised from their
	// image, and OCRConfidence is the engine's mean confidence over them.
	OCRPages      int
	OCRConfidence float64
	// Documents lists the readable documents of the source (vault paths).
	Documents []string
	// Figures lists the figures, tables and algorithms of the source's
	// main document, in page order; each is read by its ID through
	// RegionReader.
	Figures []Figure
}

// Figure is a figure, table or algorithm of a document, found from its
// caption or listed by the host's layout index.
type Figure struct {
	ID      string // the layout index's id, else kind-number: "figure-3"
	Kind    string // figure, table or algorithm
	Number  string // as the caption numbers it: "3", "S1", "2.1"
	Page    int    // 1-based physical page of the caption
	Caption string // one line, at most 200 characters
}

// Describer is implemented by sources with bibliographic metadata.
type Describer interface {
	Describe(ctx context.Context) (*Metadata, error)
}

// Entry is one entry of a directory listing.
type Entry struct {
	Name string
	Path string     // vault-relative
	Kind grant.Kind // grant.KindDirectory, grant.KindFile, or grant.KindPaper for a paper folder
	Size int64      // bytes, files only
}

// Lister is implemented by directory sources. List returns the entries of
// path (the source itself when ""), one level deep, directories first, at
// most max of them; truncated reports that more exist.
type Lister interface {
	List(ctx context.Context, path string, max int) (entries []Entry, truncated bool, err error)
}

// Region is a layout region of a page: a figure, a table, a paragraph.
type Region struct {
	Location
	ID    string
	Kind  string // figure, table, paragraph, header, ...
	Title string
	Text  string
	Box   Box
}

// Box is a rectangle in page-relative units (0–1), origin top-left.
type Box struct{ X, Y, W, H float64 }

// PageReader is implemented by sources whose documents have pages that
// take long to produce (a scan's pages, recognised by OCR). ReadPages is
// Read for a caller that will return only the given pages (1-based; nil or
// empty: none, for metadata or a search of the text): the slow work is
// done for those pages only, within ctx, and the other parts carry what is
// at hand, a part not ready saying so in its Note.
type PageReader interface {
	ReadPages(ctx context.Context, path string, pages []int) (*Document, error)
}

// RegionReader is implemented by sources that know page layout. Region
// looks a region up by a layout id ("figure-1", a layout.json region id).
type RegionReader interface {
	Region(ctx context.Context, id string) (*Region, error)
}

// Relater is implemented by sources that are papers with relations: the
// works they cite, the works citing them and related papers of the
// library. paper_relations serves any source that implements it.
type Relater interface {
	Relations(ctx context.Context) (*Relations, error)
}

// Relations of a paper.
type Relations struct {
	// Main is the paper's main document (its PDF), the one other name a
	// caller may use for the paper; "" when it has none.
	Main       string
	References []Work
	CitedBy    []Work
	Related    []Work
	// Problems says, one line each, why part of the relations could not
	// be read; the lists hold what could.
	Problems []string
	// Skipped counts malformed entries that were left out.
	Skipped int
}

// Work is a related work: a paper of the library or a work known only by
// its bibliographic data.
type Work struct {
	Title   string
	Authors []string // at most three, then "et al."
	Year    int
	DOI     string
	ArXivID string
	// Paper is the library paper this work is, when an identifier or an
	// unambiguous, confirmed title match says so; "" otherwise.
	Paper string
	// CitationURI is the library paper's PDF, else the DOI link, else the
	// arXiv link, else "".
	CitationURI string
	// Label is how the citing paper's body cites the work, as printed:
	// "12", "Vas17", "Vaswani et al., 2017"; "" when unknown.
	Label string
	// Contexts are up to two sentences of the citing paper's body that
	// cite the work: of the paper asked about for a reference, of the
	// citing library paper for a cited-by work. A caller hands them out
	// only when the paper they quote is in the grant.
	Contexts []CiteContext
}

// CiteContext is a sentence of a paper that cites a work, with its page.
type CiteContext struct {
	Page int    // 1-based
	Text string // one line, at most 300 characters
	// CitationURI is the page's URI (the citing PDF with #page=N).
	CitationURI string
}

// Container is implemented by sources that hold other sources, as a
// directory holds paper units. Inner returns the most specific source
// inside the container that holds the vault-relative path p, and p relative
// to it ("" when p names that source itself); ErrNotFound when no inner
// source holds p.
type Container interface {
	Inner(ctx context.Context, p string) (src Source, path string, err error)
}

// Holder is implemented by a connector source whose documents are not
// named below its own path: a Zotero collection, named
// "zotero:collections/Thesis", holds items named "zotero:items/<KEY>".
// Holds reports whether the document (or inner source) at p is one of its
// own; the tools then treat p as inside the source, for a read target, a
// search hit and a document alike. It must be cheap and must not block.
type Holder interface {
	Holds(p string) bool
}

// MarkKind is the kind of a Mark: the PDF annotation it is, or for a mark
// a driver keeps beside the PDF (the Vault's marks/annotations.json),
// MarkHighlight when it quotes page text and MarkNote when it does not.
type MarkKind string

// Kinds of a Mark.
const (
	MarkHighlight MarkKind = "highlight"
	MarkUnderline MarkKind = "underline"
	MarkStrikeOut MarkKind = "strikeout"
	MarkSquiggly  MarkKind = "squiggly"
	MarkNote      MarkKind = "note" // a sticky note (a PDF Text annotation)
	MarkFreeText  MarkKind = "freetext"
	MarkInk       MarkKind = "ink"
	MarkStamp     MarkKind = "stamp"
	MarkCaret     MarkKind = "caret"
)

// Mark is one of the researcher's marks: a PDF annotation (a highlight
// with the page text under it, a sticky note, ...) or an entry of a
// paper's marks/annotations.json. Path and Page are the PDF page it is on
// (Path is the annotations file's for a paper without a PDF). Its text and
// comment are the Vault's data, untrusted like any page text.
type Mark struct {
	Location
	Kind    MarkKind
	Text    string // the marked page text; empty for a note
	Comment string // the researcher's comment, replies included
	Author  string
	Created string // RFC 3339 when known, else as written
	Color   string // #rrggbb when known
	// Tags are the researcher's tags on the mark (a Zotero annotation's).
	Tags []string
	// URI, when set, is the mark's own citation URI (a Zotero
	// annotation's, with its key); the tools cite the mark's page
	// otherwise.
	URI string
}

// Marks is what a MarkReader found: the marks in page order, and why some
// could not be read (a malformed annotations file, an unreadable PDF), one
// line each, so that a short list is not taken for all there is.
type Marks struct {
	Marks    []Mark
	Problems []string
}

// MarkReader is implemented by sources that hold the researcher's marks.
// Marks returns those of the document at path ("" is the source's main
// document, as for Read): a Vault paper's are its PDF's annotations merged
// with its marks/annotations.json, without the marks both hold twice. A
// document that cannot hold marks (a Markdown file) has none.
type MarkReader interface {
	Marks(ctx context.Context, path string) (*Marks, error)
}
