package sources

import "github.com/researchctx/researchctx/internal/textnorm"

// The text a source returns (a document's parts, a hit's passage, a title)
// comes from files the researcher did not write and may hold any
// character. A host that prints it with an indent or a prefix per line
// splits it with SplitLines, so that no break a terminal, an editor or a
// model honours starts a line without its indent; the tools' own renderings
// split it the same way.

// IsLineBreak reports whether r ends a line for some reader of the text: a
// line feed, a carriage return, a vertical tab, a form feed, NEL (U+0085),
// or the Unicode line and paragraph separators (U+2028, U+2029).
func IsLineBreak(r rune) bool { return textnorm.IsBreak(r) }

// SplitLines splits s into lines at every line break (see IsLineBreak; CR
// LF is one break), without the breaks. A break at the very end does not
// start an empty line, so "a\n" is one line and "" none.
func SplitLines(s string) []string { return textnorm.SplitLines(s) }

// OneLine returns s as one line of data, as a Source's titles, section
// titles and page labels must be (package sourcetest checks them): every
// run of white space, line breaks included (see IsLineBreak), becomes one
// space, the ends are trimmed, and control and direction characters are
// written as visible escapes.
func OneLine(s string) string { return textnorm.Line(s) }
