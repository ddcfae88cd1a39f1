// Package font reads the fonts of a PDF file as text extraction needs
// them: Load builds a Font from a font dictionary, reading what it refers
// to through Objects, and Font.Decode splits a shown string into codes,
// each with its text and its advance width.
//
// It reads simple fonts with Standard, WinAnsi, MacRoman, PDFDoc or Symbol
// encodings, /Differences and Adobe Glyph List names, the built-in
// encodings of embedded Type 1 and CFF programs, and the cmap and post
// tables of embedded TrueType programs; ToUnicode CMaps; Type 0 (CID)
// fonts with Identity, embedded or predefined CJK CMaps, and Adobe's
// CID → Unicode tables for Japan1, GB1, CNS1 and Korea1; and Type 3 fonts,
// whose em it estimates. Widths come from /Widths and /W, else from the
// core-14 metrics a font's name matches.
//
// Loading does not fail: a missing or damaged entry, or a stream over a
// limit of the document's, leaves codes without text or with a default
// width. Every table read from a file is bounded in entries and steps.
//
// The glyph-name, encoding and CID tables (zz_*.go) are generated from
// Adobe's published data by internal/pdf/internal/gen; see that command
// for the inputs.
package font

//go:generate go run ../internal/gen -agl /usr/lib/python3/dist-packages/fontTools/agl.py -enc /usr/lib/python3/dist-packages/fontTools/encodings -cff /usr/lib/python3/dist-packages/fontTools/cffLib/__init__.py -cmap /usr/share/poppler/cMap -out .
