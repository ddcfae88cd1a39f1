package sources

import (
	"context"
	"path"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
)

// File is a granted plain file, with or without an extension. Text files are
// read and searched; a binary file is listed in a grant but reading it is an
// ErrNotText error. A PDF granted as a file is not a File but a PDF, a
// document with pages.
type File struct {
	lib    *Library
	ref    string
	filter *libindex.Filter // the library index narrowed to this file, its masks kept between searches
}

func (l *Library) newFile(ref string) *File {
	return &File{lib: l, ref: ref, filter: libindex.KeySet([]string{fileItem + ref})}
}

// Info implements Source.
func (f *File) Info() Info { return Info{Ref: f.ref, Kind: grant.KindFile, Title: path.Base(f.ref)} }

// Read implements Source: "" or the file's own path give its text.
func (f *File) Read(ctx context.Context, p string) (*Document, error) {
	if p != "" && p != f.ref {
		return nil, outsideErr(p, f.ref)
	}
	text, err := f.lib.v.FS().ReadText(f.ref, 0)
	if err != nil {
		return nil, fsErr(err)
	}
	return textDocument(f.ref, text), nil
}

// Search implements Source, through the library index filtered to the
// file (see Library.searchIndex).
func (f *File) Search(ctx context.Context, q Query) (*Results, error) {
	st, err := f.lib.v.FS().Stat(f.ref)
	if err != nil {
		return nil, fsErr(err)
	}
	if st.Size() > TextMax {
		return &Results{Truncated: true}, nil
	}
	key := fileItem + f.ref
	item := libindex.Item{Key: key, Stamp: fileStamp(st)}
	return f.lib.searchIndex(ctx, []libindex.Item{item}, f.filter, q)
}

// documentUnits makes the search units of a document: one per part, or one
// per section for a part with headings; a unit above maxUnitBytes is split.
func documentUnits(doc *Document) []unit {
	return splitUnits(partUnits(doc))
}

func partUnits(doc *Document) []unit {
	var units []unit
	for i, p := range doc.Parts {
		if p.NoTextLayer || p.Err != nil || p.Text == "" {
			continue
		}
		var secs []Section
		for _, s := range doc.Sections {
			if s.Part == i {
				secs = append(secs, s)
			}
		}
		if len(secs) == 0 {
			units = append(units, unit{Loc: p.Location, Title: doc.Title, Text: p.Text})
			continue
		}
		// One unit per section, so a card cites the section it is from.
		cuts := []int{0}
		titles := []string{""}
		for _, s := range secs {
			if s.Offset > 0 {
				cuts = append(cuts, s.Offset)
				titles = append(titles, s.Title)
			} else {
				titles[0] = s.Title
			}
		}
		cuts = append(cuts, len(p.Text))
		for k := 0; k+1 < len(cuts); k++ {
			text := p.Text[cuts[k]:cuts[k+1]]
			if text == "" {
				continue
			}
			loc := p.Location
			loc.Section = titles[k]
			units = append(units, unit{Loc: loc, Title: doc.Title, Text: text})
		}
	}
	return units
}
