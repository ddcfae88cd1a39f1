package zotero

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Limits on an EPUB read as text.
const (
	maxEPUBBytes   = 64 << 20 // the file
	maxEPUBText    = 64 << 20 // all its chapters, uncompressed
	maxEPUBPackage = 1 << 20  // container.xml and the package document
	maxChapters    = 2000
)

// errEPUB is an EPUB whose chapters cannot be found.
var errEPUB = fmt.Errorf("%w: not a readable EPUB", sources.ErrUnreadable)

// epubDocument reads an EPUB's chapters, in its spine's order, as one part
// each, with the chapter's first heading (else "Chapter N") as its
// section. Every size is bounded before it is read: the file, each entry
// as it is inflated, the chapters together.
func epubDocument(p, title string, data []byte) (*sources.Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, errEPUB
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	budget := int64(maxEPUBText)
	read := func(name string, max int64) ([]byte, error) {
		f := files[name]
		if f == nil {
			return nil, errEPUB
		}
		rc, err := f.Open()
		if err != nil {
			return nil, errEPUB
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, max+1))
		if err != nil || int64(len(b)) > max {
			return nil, errEPUB
		}
		return b, nil
	}
	container, err := read("META-INF/container.xml", maxEPUBPackage)
	if err != nil {
		return nil, err
	}
	var c struct {
		Rootfiles []struct {
			FullPath string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if xml.Unmarshal(container, &c) != nil || len(c.Rootfiles) == 0 {
		return nil, errEPUB
	}
	opfPath := c.Rootfiles[0].FullPath
	opf, err := read(opfPath, maxEPUBPackage)
	if err != nil {
		return nil, err
	}
	var pkg struct {
		Items []struct {
			ID   string `xml:"id,attr"`
			Href string `xml:"href,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if xml.Unmarshal(opf, &pkg) != nil {
		return nil, errEPUB
	}
	hrefs := map[string]string{}
	for _, it := range pkg.Items {
		hrefs[it.ID] = it.Href
	}
	doc := &sources.Document{Path: p, Title: title}
	for i, ref := range pkg.Spine {
		if i == maxChapters {
			break
		}
		href := hrefs[ref.IDRef]
		if href == "" {
			continue
		}
		if h, _, ok := strings.Cut(href, "#"); ok {
			href = h
		}
		name := path.Join(path.Dir(opfPath), href)
		if budget <= 0 {
			break
		}
		b, err := read(name, budget)
		if errors.Is(err, errEPUB) && files[name] != nil {
			break // over what is left of the budget
		}
		if err != nil {
			continue
		}
		budget -= int64(len(b))
		text, secs := noteText(string(b))
		if strings.TrimSpace(text) == "" {
			continue
		}
		part := len(doc.Parts)
		sec := sources.Section{Title: "Chapter " + strconv.Itoa(part+1), Level: 1, Part: part}
		if len(secs) > 0 {
			sec.Title = secs[0].Title
			sec.Offset = secs[0].Offset
		}
		sec.Title = textnorm.Line(sec.Title)
		doc.Parts = append(doc.Parts, sources.Part{Location: sources.Location{Path: p, Section: sec.Title}, Text: text})
		doc.Sections = append(doc.Sections, sec)
	}
	if len(doc.Parts) == 0 {
		return nil, fmt.Errorf("%w: no chapter holds text", errEPUB)
	}
	return doc, nil
}
