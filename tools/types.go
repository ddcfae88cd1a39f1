package tools

// The input and output types below are the wire contract of the three tools:
// package mcp derives the JSON schemas from them, so code and contract cannot
// drift. A field is optional exactly when its json tag has omitempty. The
// jsonschema tags are plain descriptions (the MCP SDK reads no keywords in
// them).

// SearchInput is the input of context_search.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"words or a phrase to look for in the granted sources"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many cards at most (capped by the budget)"`
	Source string `json:"source,omitempty" jsonschema:"search only this granted source (its path)"`
}

// Card is one evidence card: a short verbatim excerpt and where it is from.
type Card struct {
	Source      string  `json:"source"`
	Kind        string  `json:"kind"`
	Path        string  `json:"path"`
	Title       string  `json:"title,omitempty"`
	Page        int     `json:"page,omitempty"`
	PageLabel   string  `json:"pageLabel,omitempty"`
	Section     string  `json:"section,omitempty"`
	Excerpt     string  `json:"excerpt"`
	Score       float64 `json:"score"`
	CitationURI string  `json:"citationUri"`
}

// BudgetReport says how much of the turn's character budget is used and
// how much remains, after this call.
type BudgetReport struct {
	Used      int `json:"used"`
	Remaining int `json:"remaining"`
}

// SearchOutput is the result of context_search.
type SearchOutput struct {
	Cards     []Card       `json:"cards"`
	Truncated bool         `json:"truncated"`
	Indexing  Indexing     `json:"indexing,omitzero"`
	Budget    BudgetReport `json:"budget"`
}

// Indexing says a search answered while the library index was still being
// built, from the items done so far (Truncated is set too). It is the zero
// value, and left out, when the index was complete.
type Indexing struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Read modes of context_read.
const (
	ModeMetadata = "metadata"
	ModeExcerpt  = "excerpt"
	ModeSection  = "section"
	ModePage     = "page"
	ModeRegion   = "region"
	ModeFull     = "full"
)

// ReadInput is the input of context_read.
type ReadInput struct {
	Target  string `json:"target" jsonschema:"a granted source, a file inside a granted directory, or a citation URI of either"`
	Mode    string `json:"mode,omitempty" jsonschema:"metadata (default), excerpt, section, page, region or full"`
	Quote   string `json:"quote,omitempty" jsonschema:"excerpt mode: text to find; the passage around it is returned"`
	Section string `json:"section,omitempty" jsonschema:"section mode: a section title from the metadata"`
	Page    int    `json:"page,omitempty" jsonschema:"page mode: 1-based physical page"`
	Region  string `json:"region,omitempty" jsonschema:"region mode: a layout id such as figure-1"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"continue a cut read: the nextCursor of the previous result"`
}

// SectionInfo is one entry of a document's section list.
type SectionInfo struct {
	Title string `json:"title"`
	Level int    `json:"level,omitempty"`
	Page  int    `json:"page,omitempty"`
}

// EntryInfo is one entry of a directory listing.
type EntryInfo struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Size int64  `json:"size,omitempty"`
}

// ReadOutput is the result of context_read. Which fields are set depends on
// the mode: metadata fields for metadata, entries for a directory, text with
// its location for the other modes.
type ReadOutput struct {
	Target      string        `json:"target"`
	Mode        string        `json:"mode"`
	Title       string        `json:"title,omitempty"`
	Authors     []string      `json:"authors,omitempty"`
	Year        int           `json:"year,omitempty"`
	Abstract    string        `json:"abstract,omitempty"`
	DOI         string        `json:"doi,omitempty"`
	ArXivID     string        `json:"arxivId,omitempty"`
	Pages       int           `json:"pages,omitempty"`
	Sections    []SectionInfo `json:"sections,omitempty"`
	Documents   []string      `json:"documents,omitempty"`
	Entries     []EntryInfo   `json:"entries,omitempty"`
	Text        string        `json:"text,omitempty"`
	Page        int           `json:"page,omitempty"`
	PageLabel   string        `json:"pageLabel,omitempty"`
	Section     string        `json:"section,omitempty"`
	Region      string        `json:"region,omitempty"`
	Matches     int           `json:"matches,omitempty"`
	CitationURI string        `json:"citationUri"`
	Truncated   bool          `json:"truncated"`
	NextCursor  string        `json:"nextCursor,omitempty"`
	Budget      BudgetReport  `json:"budget"`
}

// Relation kinds of paper_relations.
const (
	RelReferences = "references"
	RelCitedBy    = "cited_by"
	RelRelated    = "related"
	RelAll        = "all"
)

// RelationsInput is the input of paper_relations.
type RelationsInput struct {
	Paper string `json:"paper" jsonschema:"a granted paper (its path or a citation URI of its PDF)"`
	Kind  string `json:"kind,omitempty" jsonschema:"references, cited_by, related or all (default)"`
	Limit int    `json:"limit,omitempty" jsonschema:"cards per list at most"`
}

// RelationCard is a slim card for a related work. PaperPath is set only for
// a library paper matched by DOI or arXiv id; CitationURI is the library PDF,
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
}

// RelationsOutput is the result of paper_relations.
type RelationsOutput struct {
	Paper      string         `json:"paper"`
	References []RelationCard `json:"references"`
	CitedBy    []RelationCard `json:"citedBy"`
	Related    []RelationCard `json:"related"`
	Truncated  bool           `json:"truncated"`
	Budget     BudgetReport   `json:"budget"`
}
