package tools

import (
	"cmp"
	"context"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/sources"
)

// readMode is one mode of context_read: everything the read does that
// depends on the mode, so that a mode is declared in one place. The
// reading itself is the mode's own code, which the entry names.
type readMode struct {
	mode ReadMode
	// note is what the tool's description says after the name, in
	// brackets, when the name alone does not say what the mode returns.
	note string
	// inferRank, when not 0, lets the mode be inferred when no mode is
	// named and infers holds for the input or the target's fragment: of
	// the modes that hold, the lowest rank wins.
	inferRank int
	infers    func(in ReadInput, frag cite.URI) bool
	// fromFragment sets the mode's argument from the target's fragment
	// (#page=3 for page mode) when the input has none.
	fromFragment func(in *ReadInput, frag cite.URI)
	// lists: a directory answers this mode with its entries. Any other
	// mode of a directory is an error.
	lists bool
	// load reads the document the mode reads from: nil means the mode
	// reads from its source alone, without a document (read's doc is
	// then nil).
	load func(r *reader, ctx context.Context, in ReadInput) (*sources.Document, error)
	// read fills out: the mode's own code.
	read func(r *reader, ctx context.Context, doc *sources.Document, in ReadInput, out *ReadOutput) error
	// cut, when set, shortens what the mode put in an over-budget result
	// beyond its text by over characters, and reports whether it cut
	// (see reader.fit, which cuts the text, then this, then the rest).
	cut func(r *reader, out *ReadOutput, over int) bool
	// cite, when set, sets the result's citation URIs from what it holds,
	// in place of the spans of its text (reader.cite).
	cite func(r *reader, out *ReadOutput)
	// cursorTarget, when set, is the target a cut read's cursor names;
	// else the target's path.
	cursorTarget func(tg *target, in ReadInput) string
	// sameWork: the result names a document together with its DOI and
	// arXiv links, which the usage log records as one work.
	sameWork bool
}

// readModes are the modes of context_read, in the order the tool's
// description and docs/contract.md list them; the first is the default.
// They drive the mode's validation (Read), its inference from the
// arguments, the document read, the reading, the cut to the budget, the
// citations, and the tool's description (ReadModes, ReadMode.Hint).
var readModes = []readMode{
	{
		// The document's metadata (title, authors, ids, abstract,
		// sections, figures, documents, the user's mark count), or a
		// directory's entries.
		mode:  ReadMetadata,
		lists: true,
		load:  (*reader).loadDocument,
		read: func(r *reader, ctx context.Context, doc *sources.Document, _ ReadInput, out *ReadOutput) error {
			return r.metadata(ctx, doc, out)
		},
		sameWork: true,
	},
	{
		// The passage that holds a quote, exact or approximate.
		mode:      ReadExcerpt,
		inferRank: 1,
		infers:    func(in ReadInput, _ cite.URI) bool { return in.Quote != "" },
		load:      (*reader).loadDocument,
		read: func(r *reader, ctx context.Context, doc *sources.Document, in ReadInput, out *ReadOutput) error {
			return r.excerpt(ctx, doc, in.Quote, out)
		},
	},
	{
		// A section's text, by title or number.
		mode:         ReadSection,
		inferRank:    3,
		infers:       func(in ReadInput, frag cite.URI) bool { return in.Section != "" || frag.Section != "" },
		fromFragment: func(in *ReadInput, frag cite.URI) { in.Section = cmp.Or(in.Section, frag.Section) },
		load:         (*reader).loadDocument,
		read: func(r *reader, _ context.Context, doc *sources.Document, in ReadInput, out *ReadOutput) error {
			return r.section(doc, in.Section, out)
		},
	},
	{
		// One page's text.
		mode:      ReadPage,
		inferRank: 2,
		infers:    func(in ReadInput, frag cite.URI) bool { return in.Page > 0 || frag.Page > 0 },
		fromFragment: func(in *ReadInput, frag cite.URI) {
			if in.Page == 0 {
				in.Page = frag.Page
			}
		},
		load: func(r *reader, ctx context.Context, in ReadInput) (*sources.Document, error) {
			// A source with slow pages recognises this one page only.
			var pages []int
			if in.Page > 0 {
				pages = []int{in.Page}
			}
			return readFor(ctx, r.tg.src, r.tg.path, pages)
		},
		read: func(r *reader, _ context.Context, doc *sources.Document, in ReadInput, out *ReadOutput) error {
			return r.page(doc, in.Page, out)
		},
	},
	{
		// A figure's, table's or algorithm's text by its layout id.
		mode:         ReadRegion,
		inferRank:    4,
		infers:       func(in ReadInput, frag cite.URI) bool { return in.Region != "" || frag.Region != "" || frag.Item != "" },
		fromFragment: func(in *ReadInput, frag cite.URI) { in.Region = cmp.Or(in.Region, frag.Region, frag.Item) },
		read: func(r *reader, ctx context.Context, _ *sources.Document, in ReadInput, out *ReadOutput) error {
			return r.region(ctx, in.Region, out)
		},
		cursorTarget: func(tg *target, in ReadInput) string {
			if tg.frag.Item != "" && tg.frag.Item == in.Region {
				// The rest of a figure asked for as #figure=N is cited alike.
				return cite.Item(tg.frag.Path, in.Region)
			}
			return tg.frag.Path
		},
	},
	{
		// The whole text, cut to the read's budget and paged by a cursor.
		mode: ReadFull,
		note: "paged",
		load: func(r *reader, ctx context.Context, _ ReadInput) (*sources.Document, error) {
			if pr, ok := r.tg.src.(sources.PageReader); ok {
				return r.readFull(ctx, pr, r.tg.path)
			}
			return r.tg.src.Read(ctx, r.tg.path)
		},
		read: func(r *reader, _ context.Context, doc *sources.Document, _ ReadInput, out *ReadOutput) error {
			return r.full(doc, out)
		},
	},
	{
		// ReadMarks: the user's marks, in page order, paged by a cursor.
		mode: ReadMarks,
		note: "the user's highlights, notes",
		read: func(r *reader, ctx context.Context, _ *sources.Document, _ ReadInput, out *ReadOutput) error {
			return r.marks(ctx, out)
		},
		cut:  (*reader).cutMarks,
		cite: (*reader).citeMarks,
	},
}

// modeOf returns the entry of m in readModes, or nil.
func modeOf(m ReadMode) *readMode {
	for i := range readModes {
		if readModes[i].mode == m {
			return &readModes[i]
		}
	}
	return nil
}

// ReadModes returns the modes of context_read in the order the tool's
// description and the contract list them; the first is the default.
func ReadModes() []ReadMode {
	out := make([]ReadMode, len(readModes))
	for i, m := range readModes {
		out[i] = m.mode
	}
	return out
}

// Hint returns the mode as the tool's description names it: its name, and
// in brackets "default" for the default mode or what it returns when the
// name alone does not say it ("full (paged)"). It is the name alone for a
// mode that is not one of ReadModes.
func (m ReadMode) Hint() string {
	e := modeOf(m)
	switch {
	case e == nil:
		return string(m)
	case e == &readModes[0]:
		return string(m) + " (default)"
	case e.note != "":
		return string(m) + " (" + e.note + ")"
	}
	return string(m)
}

// modeNames is the modes' names, in order, for an error that lists them.
func modeNames() string {
	names := make([]string, len(readModes))
	for i, m := range readModes {
		names[i] = string(m.mode)
	}
	return strings.Join(names, ", ")
}

// inferMode picks the mode: named, else the one the arguments or the
// target's fragment carry the argument of, else the default. A named mode
// that is not one of readModes gives nil.
func inferMode(in ReadInput, frag cite.URI) *readMode {
	if in.Mode != "" {
		return modeOf(in.Mode)
	}
	var best *readMode
	for i := range readModes {
		m := &readModes[i]
		if m.inferRank > 0 && m.infers(in, frag) && (best == nil || m.inferRank < best.inferRank) {
			best = m
		}
	}
	if best == nil {
		return &readModes[0]
	}
	return best
}
