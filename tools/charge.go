package tools

import "unicode/utf8"

// The charge of a result is what it costs the turn's budget: the number of
// characters (Unicode code points) of every string the result holds — text,
// excerpts, titles, authors, ids, section titles, documents, entry names and
// kinds, paths, citation URIs. Numbers, the budget report and the opaque
// cursor (a token to hand back, not content) are free. A result never holds more than the call reserved, and the
// usage line logs exactly its charge.

// Chars returns the charge of a search result.
func (o *SearchOutput) Chars() int {
	n := 0
	for _, s := range o.Skipped {
		n += runes(s.Path, s.Reason)
	}
	for i := range o.Cards {
		n += o.Cards[i].chars()
	}
	return n
}

func (c *Card) chars() int {
	return runes(c.Source, string(c.Kind), c.Path, c.Title, c.PageLabel, c.Section, c.Excerpt, c.CitationURI) + runes(c.CitationURIs...) + c.Mark.chars()
}

// Chars returns the charge of a read result.
func (o *ReadOutput) Chars() int {
	n := runes(o.Target, string(o.Mode), o.Title, o.Abstract, o.DOI, o.ArXivID, o.Text, o.PageLabel,
		o.Section, o.Region, o.CitationURI, string(o.Match))
	n += runes(o.Authors...) + runes(o.Documents...) + runes(o.CitationURIs...)
	for _, s := range o.Sections {
		n += runes(s.Title, s.Number)
	}
	for _, e := range o.Entries {
		n += runes(e.Name, string(e.Kind))
	}
	for i := range o.Marks {
		n += o.Marks[i].chars()
	}
	for _, f := range o.Figures {
		n += f.chars()
	}
	return n + runes(o.Problems...)
}

func (f *FigureInfo) chars() int { return runes(f.ID, f.Kind, f.Number, f.Caption) }

// Chars returns the charge of a relations result.
func (o *RelationsOutput) Chars() int {
	n := runes(o.Paper, string(o.Kind)) + runes(o.Problems...)
	for _, l := range [][]RelationCard{o.References, o.CitedBy, o.Related} {
		for i := range l {
			n += l[i].chars()
		}
	}
	return n
}

func (c *RelationCard) chars() int {
	n := runes(c.Title, c.DOI, c.ArXivID, c.PaperPath, c.CitationURI, c.Label) + runes(c.Authors...)
	for _, x := range c.Contexts {
		n += runes(x.Text, x.CitationURI)
	}
	return n
}

func runes(ss ...string) int {
	n := 0
	for _, s := range ss {
		n += utf8.RuneCountInString(s)
	}
	return n
}
