package zotero

import (
	"html"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// maxNoteBytes bounds the HTML of a note that is turned into text; a note
// above it is read up to it, and says so at its end.
const maxNoteBytes = 8 << 20

// maxHeading bounds a heading's title, in bytes of HTML text.
const maxHeading = 400

// noteText turns Zotero's note HTML into text: block elements end lines,
// list items start with "- ", tags are dropped and entities decoded, and
// the headings (h1–h6) become sections anchored in the text. It is one
// pass over the bytes with no tree, so its time and memory are linear in
// the note whatever its nesting; a note above maxNoteBytes is cut there.
func noteText(src string) (text string, secs []sources.Section) {
	cut := false
	if len(src) > maxNoteBytes {
		src, cut = src[:maxNoteBytes], true
	}
	var b strings.Builder
	b.Grow(len(src) / 2)
	var pend strings.Builder // text since the last tag, decoded at the next
	heading := 0             // level of the open heading, 0 outside one
	headAt := 0
	flush := func() {
		if pend.Len() == 0 {
			return
		}
		t := html.UnescapeString(pend.String())
		pend.Reset()
		t = strings.Join(strings.FieldsFunc(t, func(r rune) bool { return r == '\n' || r == '\r' || r == '\t' }), " ")
		if strings.TrimSpace(t) == "" && (b.Len() == 0 || strings.HasSuffix(b.String()[max(0, b.Len()-1):], "\n")) {
			return
		}
		b.WriteString(t)
	}
	newline := func() {
		s := b.String()
		if b.Len() > 0 && !strings.HasSuffix(s[max(0, len(s)-1):], "\n") {
			b.WriteByte('\n')
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c != '<' {
			j := strings.IndexByte(src[i:], '<')
			if j < 0 {
				j = len(src) - i
			}
			pend.WriteString(src[i : i+j])
			i += j
			continue
		}
		end := strings.IndexByte(src[i:], '>')
		if end < 0 {
			break // an unclosed tag ends the note
		}
		tag := src[i+1 : i+end]
		i += end + 1
		flush()
		closing := strings.HasPrefix(tag, "/")
		name := strings.ToLower(strings.TrimLeft(tag, "/"))
		if k := strings.IndexAny(name, " \t\r\n/"); k >= 0 {
			name = name[:k]
		}
		switch name {
		case "h1", "h2", "h3", "h4", "h5", "h6":
			if !closing {
				newline()
				heading, headAt = int(name[1]-'0'), b.Len()
				continue
			}
			if heading > 0 {
				title := b.String()[headAt:]
				if len(title) > maxHeading {
					title = title[:maxHeading]
				}
				if t := textnorm.Line(title); t != "" {
					secs = append(secs, sources.Section{Title: t, Level: heading, Offset: headAt})
				}
				heading = 0
			}
			newline()
		case "p", "div", "blockquote", "pre", "tr", "table", "ul", "ol", "hr", "section":
			newline()
		case "br":
			b.WriteByte('\n')
		case "li":
			if !closing {
				newline()
				b.WriteString("- ")
			} else {
				newline()
			}
		case "td", "th":
			if closing {
				b.WriteByte('\t')
			}
		case "script", "style":
			if !closing {
				// Their content is no text of the note.
				k := strings.Index(strings.ToLower(src[i:min(len(src), i+maxNoteBytes)]), "</"+name)
				if k < 0 {
					i = len(src)
				} else {
					i += k
				}
			}
		}
	}
	flush()
	text = strings.TrimRight(b.String(), " \n\t")
	if cut {
		text += "\n[the note continues beyond " + "8 MiB and is cut here]"
	}
	return text, secs
}

// noteTitle returns a note's title: the title Zotero stored, else the
// first line of its text.
func noteTitleOf(it *Item, text string) string {
	if t := textnorm.Line(it.noteTitle); t != "" {
		return t
	}
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	t, _ := textnorm.Truncate(textnorm.Line(line), 200)
	return t
}
