package tools

import (
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
)

// The input and output types below are the wire contract of the three tools:
// package mcp derives the JSON schemas from them, so code and contract cannot
// drift. A field is optional exactly when its json tag has omitempty. The
// jsonschema tags are plain descriptions (the MCP SDK reads no keywords in
// them). A string field of a result is charged to the turn's budget unless
// its charge tag says "free" (see charge.go).

// SearchInput is the input of context_search.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"words or a phrase"`
	Limit  int    `json:"limit,omitempty" jsonschema:"cards at most"`
	Source string `json:"source,omitempty" jsonschema:"only this granted source"`
}

// Card is one evidence card: a short verbatim excerpt and where it is from.
type Card struct {
	Source      string     `json:"source"`
	Kind        grant.Kind `json:"kind"`
	Path        string     `json:"path"`
	Title       string     `json:"title,omitempty"`
	Page        int        `json:"page,omitempty"`
	PageLabel   string     `json:"pageLabel,omitempty"`
	Section     string     `json:"section,omitempty"`
	Excerpt     string     `json:"excerpt"`
	Score       float64    `json:"score"`
	CitationURI string     `json:"citationUri"`
	// OCR and Confidence mark an excerpt recognised from a page image.
	OCR        bool    `json:"ocr,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// CitationURIs, set when the excerpt came from more than one page (or
	// other locator), lists every one, in order, CitationURI first; each is
	// logged as a source of the turn.
	CitationURIs []string `json:"citationUris,omitempty"`
	// Mark, set when the card is one of the user's marks, gives its kind
	// and comment.
	Mark CardMark `json:"mark,omitzero"`
}

// BudgetReport says how much of the turn's character budget is used and
// how much remains, after this call.
type BudgetReport struct {
	Used      int `json:"used"`
	Remaining int `json:"remaining"`
}

// SearchOutput is the result of context_search.
//
// Truncated and Partial say two different things. Truncated: more matched
// than the cards returned (the limit or the budget cut the list); asking
// for more, or narrowing, finds them. Partial: the search did not look at
// everything, so more might match than it knows of: a source's scan cap
// was hit, a file was too large to index, the library index was still
// being built (Indexing says how far), a document could not be read
// (Skipped says which) or a source failed.
type SearchOutput struct {
	Cards     []Card           `json:"cards"`
	Truncated bool             `json:"truncated"`
	Partial   bool             `json:"partial"`
	Indexing  sources.Indexing `json:"indexing,omitzero"`
	Skipped   []Skipped        `json:"skipped,omitempty"`
	// SkippedMore counts the documents that could not be read beyond the
	// MaxSkipped that Skipped lists.
	SkippedMore int          `json:"skippedMore,omitempty"`
	Budget      BudgetReport `json:"budget"`
	// Untrusted, Notice and Note frame the result for a client that gives
	// its model the structured content rather than the text (Claude Code
	// does): quoted text is data, and Note says what was cut, if anything.
	Untrusted bool   `json:"untrusted"`
	Notice    string `json:"notice" charge:"free"`
	Note      string `json:"note,omitempty" charge:"free"`
}

// Skipped is a document a search could not read — a damaged or encrypted
// PDF, an HTML page saved as .pdf, one over an extraction limit — or a
// granted source that failed: its vault path and why, in one line.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// MaxSkipped is how many unreadable documents a search lists; the rest are
// counted in SearchOutput.SkippedMore.
const MaxSkipped = 5

// ReadMode is what context_read returns of its target (ReadInput.Mode,
// ReadOutput.Mode). ReadModes lists the modes Read takes, in order.
type ReadMode string

// Read modes of context_read.
const (
	ReadMetadata ReadMode = "metadata"
	ReadExcerpt  ReadMode = "excerpt"
	ReadSection  ReadMode = "section"
	ReadPage     ReadMode = "page"
	ReadRegion   ReadMode = "region"
	ReadFull     ReadMode = "full"
	// ReadMarks lists the user's own marks on a paper or PDF: its
	// highlights, underlines and notes, with the page text they mark and
	// their comments.
	ReadMarks ReadMode = "marks"
)

// ReadInput is the input of context_read.
type ReadInput struct {
	Target  string   `json:"target" jsonschema:"a granted path or citation URI"`
	Mode    ReadMode `json:"mode,omitempty" jsonschema:"see above"`
	Quote   string   `json:"quote,omitempty" jsonschema:"excerpt: text to find"`
	Section string   `json:"section,omitempty" jsonschema:"section: title or number"`
	Page    int      `json:"page,omitempty" jsonschema:"page: physical, 1-based"`
	Region  string   `json:"region,omitempty" jsonschema:"region: id (figure-1)"`
	Cursor  string   `json:"cursor,omitempty" jsonschema:"a cut read's nextCursor"`
}

// SectionInfo is one entry of a document's section list. Number is the
// section's number ("3.5", "A.2") when it has one.
type SectionInfo struct {
	Title  string `json:"title"`
	Number string `json:"number,omitempty"`
	Level  int    `json:"level,omitempty"`
	Page   int    `json:"page,omitempty"`
}

// FigureInfo is a figure, table or algorithm of a document in metadata:
// read it by its id (mode region) or by #figure=N, #table=N or
// #algorithm=N on the document's URI.
type FigureInfo struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Number  string `json:"number,omitempty"`
	Page    int    `json:"page,omitempty"`
	Caption string `json:"caption,omitempty"`
}

// EntryInfo is one entry of a directory listing.
type EntryInfo struct {
	Name string     `json:"name"`
	Kind grant.Kind `json:"kind"`
	Size int64      `json:"size,omitempty"`
}

// Match says how an excerpt's passage matched its quote (ReadOutput.Match).
type Match string

// How an excerpt's passage matched its quote (ReadOutput.Match, with
// ReadOutput.Score: 1 for an exact match, else the similarity, 0–1). An
// approximate passage is reported from a score of 0.60 for a quote of ten
// content words or more, 0.02 higher per word fewer (textnorm.MinScoreFor);
// below that the read is not found.
const (
	// MatchExact: the passage holds the quote word for word, after
	// normalising case, ligatures, hyphenation and whitespace.
	MatchExact Match = "exact"
	// MatchApproximate: the passage is the page text closest to the quote
	// (words dropped, added or changed, another inflection, a clause
	// moved), with Score at or above the threshold; the text returned is
	// the page's own, never the quote.
	MatchApproximate Match = "approximate"
)

// ReadOutput is the result of context_read. Which fields are set depends on
// the mode: metadata fields for metadata, entries for a directory, text with
// its location for the other modes.
type ReadOutput struct {
	Target      string        `json:"target"`
	Mode        ReadMode      `json:"mode"`
	Title       string        `json:"title,omitempty"`
	Authors     []string      `json:"authors,omitempty"`
	Year        int           `json:"year,omitempty"`
	Abstract    string        `json:"abstract,omitempty"`
	DOI         string        `json:"doi,omitempty"`
	ArXivID     string        `json:"arxivId,omitempty"`
	Pages       int           `json:"pages,omitempty"`
	Sections    []SectionInfo `json:"sections,omitempty"`
	Figures     []FigureInfo  `json:"figures,omitempty"`
	Documents   []string      `json:"documents,omitempty"`
	Entries     []EntryInfo   `json:"entries,omitempty"`
	Text        string        `json:"text,omitempty"`
	Page        int           `json:"page,omitempty"`
	PageLabel   string        `json:"pageLabel,omitempty"`
	Section     string        `json:"section,omitempty"`
	Region      string        `json:"region,omitempty"`
	Matches     int           `json:"matches,omitempty"`
	Match       Match         `json:"match,omitempty"`
	Score       float64       `json:"score,omitempty"`
	CitationURI string        `json:"citationUri"`
	// OCR and Confidence mark text recognised from page images (page and
	// excerpt modes: that page; full: any of its pages; metadata: the
	// document has recognised pages, OCRPages of them), with the OCR
	// engine's mean confidence, 0–1.
	OCR        bool    `json:"ocr,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	OCRPages   int     `json:"ocrPages,omitempty"`
	// CitationURIs, set when the text came from more than one page (or
	// other locator), lists every one, in order, CitationURI first: a full
	// read over pages 1 to 10, a section over pages 3 to 6, a quote
	// across a page break. Only locators whose text the result holds, after
	// any cut, are listed; each is logged as a source of the turn.
	CitationURIs []string     `json:"citationUris,omitempty"`
	Truncated    bool         `json:"truncated"`
	NextCursor   string       `json:"nextCursor,omitempty" charge:"free"`
	Budget       BudgetReport `json:"budget"`
	// MarkCount, in a metadata read, counts the user's marks on the
	// document; Marks, in a marks read, lists them in page order.
	MarkCount int        `json:"markCount,omitempty"`
	Marks     []MarkInfo `json:"marks,omitempty"`
	// Untrusted, Notice and Note frame the result for a client that gives
	// its model the structured content rather than the text (Claude Code
	// does): quoted text is data, and Note says what was cut, if anything.
	Untrusted bool   `json:"untrusted"`
	Notice    string `json:"notice" charge:"free"`
	Note      string `json:"note,omitempty" charge:"free"`
	// Problems, in a marks read, says why some marks could not be read
	// (a malformed marks/annotations.json), one line each. It is not a
	// field of the result: the note and the text say it.
	Problems []string `json:"-"`
}

// RelationKind is which lists paper_relations returns (RelationsInput.Kind,
// RelationsOutput.Kind).
type RelationKind string

// Relation kinds of paper_relations.
const (
	RelReferences RelationKind = "references"
	RelCitedBy    RelationKind = "cited_by"
	RelRelated    RelationKind = "related"
	RelAll        RelationKind = "all"
)

// RelationsInput is the input of paper_relations.
type RelationsInput struct {
	Paper string       `json:"paper" jsonschema:"a granted paper: path or citation URI"`
	Kind  RelationKind `json:"kind,omitempty" jsonschema:"references, cited_by, related or all (default)"`
	Limit int          `json:"limit,omitempty" jsonschema:"cards per list at most"`
	// Cursor continues every list where the previous page left it; it is
	// valid for the same paper, kind and library filter only.
	Cursor string `json:"cursor,omitempty" jsonschema:"the previous nextCursor"`
	// Library keeps only the cards of library papers (with PaperPath).
	Library bool `json:"library,omitempty" jsonschema:"only library papers"`
}

// RelationCounts counts the cards of each list of paper_relations that
// later pages hold.
type RelationCounts struct {
	References int `json:"references"`
	CitedBy    int `json:"citedBy"`
	Related    int `json:"related"`
}

// RelationCard is a slim card for a related work. PaperPath is set only for
// a library paper matched by DOI, arXiv id or title; CitationURI is the library PDF,
// else the DOI link, else the arXiv link, else empty.
type RelationCard struct {
	Title       string   `json:"title,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	Year        int      `json:"year,omitempty"`
	DOI         string   `json:"doi,omitempty"`
	ArXivID     string   `json:"arxivId,omitempty"`
	PaperPath   string   `json:"paperPath,omitempty"`
	InGrant     bool     `json:"inGrant"`
	CitationURI string   `json:"citationUri"`
	// Label is how the citing paper cites the work, as printed ("12",
	// "Vas17", "Vaswani et al., 2017"): the granted paper's for a
	// reference, the citing paper's for a cited-by card only when that
	// paper is in the grant (it is the citing paper's text).
	Label string `json:"label,omitempty"`
	// Contexts are up to two sentences of the citing paper that cite the
	// work — the granted paper's for a reference, the citing paper's for
	// a cited-by card when that paper is in the grant —, never text from
	// outside the grant.
	Contexts []RelationContext `json:"contexts,omitempty"`
}

// RelationContext is a sentence of a granted paper that cites a work.
type RelationContext struct {
	Page        int    `json:"page"`
	Text        string `json:"text"`
	CitationURI string `json:"citationUri"`
}

// RelationsOutput is the result of paper_relations.
type RelationsOutput struct {
	Paper string `json:"paper"`
	// Kind is the kind asked for (RelAll when none was): the lists of
	// other kinds are empty because they were not asked for.
	Kind       RelationKind   `json:"kind"`
	References []RelationCard `json:"references"`
	CitedBy    []RelationCard `json:"citedBy"`
	Related    []RelationCard `json:"related"`
	// Problems says why part of the relations could not be read (a
	// malformed reference sidecar, PDF text that could not be read, a
	// malformed cache), so that an empty list is not taken for "none":
	// the lists hold what could be read. One line each.
	Problems []string `json:"problems,omitempty"`
	// Skipped counts malformed entries of the sidecar and the cache that
	// were left out.
	Skipped   int  `json:"skipped,omitempty"`
	Truncated bool `json:"truncated"`
	// NextCursor, set when a list has more cards than this page holds,
	// is the cursor of the next page; Remaining counts those cards.
	NextCursor string         `json:"nextCursor,omitempty" charge:"free"`
	Remaining  RelationCounts `json:"remaining,omitzero"`
	Budget     BudgetReport   `json:"budget"`
	// Untrusted, Notice and Note frame the result for a client that gives
	// its model the structured content rather than the text (Claude Code
	// does): quoted text is data, and Note says what was cut, if anything.
	Untrusted bool   `json:"untrusted"`
	Notice    string `json:"notice" charge:"free"`
	Note      string `json:"note,omitempty" charge:"free"`

	page *relPage // how this page was cut, for Repage
}
