// Package pdf extracts the text layer of PDF files: page text in reading
// order with line boxes, font sizes and weights, printed page labels,
// bookmarks, a title guess and headings.
//
// Package object below it audits a file's cross-reference sections
// against what the file's size can back, then reads its objects lazily:
// an object is parsed, into pdfcpu's types, when it is first asked for,
// and an object stream decoded when one of its objects is. pdfcpu parses
// the whole file instead (cross-reference table, every object) when the
// lazy reader does not read it: an encrypted file, one over 16 MiB, a
// damaged table, or an object outside the plain grammar the two read
// alike. Package object also splits content streams into tokens (its
// Lexer: numbers, names, strings, arrays, dictionaries, operators; inline
// image data skipped).
//
// Package font, between the two, reads a font dictionary through the
// document's objects and decodes a shown string into codes, each with its
// text and advance width: simple fonts with Standard, WinAnsi, MacRoman,
// PDFDoc or Symbol encodings, /Differences and Adobe Glyph List names,
// built-in encodings of embedded Type 1 and CFF programs, ToUnicode CMaps,
// Type 0 (CID) fonts with Identity, embedded or predefined CMaps and
// Adobe's CID → Unicode tables for Japan1, GB1, CNS1 and Korea1, and
// Type 3 fonts. Everything after that is this package's own:
//
//   - interpreter: the graphics and text state (q Q cm, BT ET, Tf Td TD Tm
//     T* Tj TJ ' " Tc Tw Tz TL Ts) and Form XObjects; it places the codes
//     that package font decodes a shown string into, which yields glyph
//     runs: each glyph's text, origin, advance and size in page space;
//   - lines: glyphs grouped into same-baseline fragments, then into lines,
//     with word spaces inferred from the gaps between glyphs;
//   - columns: a vertical white strip in the middle 30–70 % of the text's
//     extent, flanked by text on both sides, splits a page (or each band of
//     it between full-width elements) into a left and a right column, read
//     in that order; a page with no such strip across its whole height (a
//     table or title block spans it) is cut into bands at blank horizontal
//     strips and each band looked at alone; vertical writing is ordered the
//     same way in its turned frame (columns right to left, tiers top down);
//   - text: lines joined by "\n", paragraphs (wider line gaps, size
//     changes, new blocks) by "\n\n"; ligatures expanded, overprinted
//     glyphs dropped, separately drawn accents composed with their letters.
//
// Invisible text (render mode 3, the layer of OCR'd scans) is extracted like
// any other; a page without any text is reported with NoTextLayer rather
// than as empty text. Damaged pages fail alone (Page.Err); whole-file
// failures are typed (ErrEncrypted, ErrMalformed, ErrTooLarge, ErrTimeout).
// Every recursive or unbounded step has a limit (Options, and the Max*
// constants: objects, nesting, operands, decoded bytes, operators, glyphs,
// text, time),
// and exceeding one is a *LimitError for the page or the document, never a
// crash: hostile files are expected.
//
// Extractor is the small interface another backend would implement.
// Package pdfcache above this one keeps extracted documents, and failures,
// on disk; this package knows nothing of its files.
//
// Objects opens a file for what its pages draw rather than their text:
// package pageimage (internal/pdf/pageimage) reads a scanned page's picture
// through it, and this package imports nothing of it.
package pdf
