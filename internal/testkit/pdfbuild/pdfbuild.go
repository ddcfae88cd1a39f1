// Package pdfbuild writes small PDFs for tests from objects given as PDF
// source, so that a test states the structure it exercises in a few lines.
package pdfbuild

import (
	"bytes"
	"fmt"
)

// Builder collects a document's objects, numbered from 1 in the order
// added; the caller adds the catalog and names it in Bytes.
type Builder struct {
	objs []string
}

// Add adds an object given as PDF source and returns its number.
func (b *Builder) Add(src string) int {
	b.objs = append(b.objs, src)
	return len(b.objs)
}

// Stream adds a stream object with the given extra dictionary entries and
// returns its number.
func (b *Builder) Stream(dict, data string) int {
	return b.Add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data)+1, data))
}

// Len returns the number of objects added: the number of the last.
func (b *Builder) Len() int { return len(b.objs) }

// Set replaces object n, to close reference cycles such as page → parent.
func (b *Builder) Set(n int, src string) { b.objs[n-1] = src }

// Bytes returns the document with a classic cross-reference table, its
// trailer naming root as the catalog and info (if not 0) as the
// document information dictionary.
func (b *Builder) Bytes(root, info int) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(b.objs))
	for i, o := range b.objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(b.objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R", len(b.objs)+1, root)
	if info > 0 {
		fmt.Fprintf(&out, " /Info %d 0 R", info)
	}
	fmt.Fprintf(&out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return out.Bytes()
}
