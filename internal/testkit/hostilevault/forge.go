package hostilevault

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/safefs"
)

// The forgers below write the SDK's own caches as someone who knows their
// format could (a synced folder, an unpacked archive, another machine):
// well-formed, sealed, and pointing a granted document at another one.
// The layouts are written out here, not imported, as a forger would.

// forgedVersion is the catalogue cache's version this forger writes.
const forgedVersion = 7

// catalogueReader reads the catalogue cache's fields: a string is a
// uvarint length and its bytes, a list of names a uvarint count and its
// strings, a number a varint or a uvarint, flags one byte.
type catalogueReader struct {
	b   []byte
	err error
}

func (r *catalogueReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("hostilevault: catalogue cache cut short")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *catalogueReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("hostilevault: catalogue cache cut short")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *catalogueReader) str() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errors.New("hostilevault: catalogue cache cut short")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *catalogueReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errors.New("hostilevault: catalogue cache cut short")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// ForgeCatalogue rewrites the catalogue cache of the Vault at vault (built
// by an earlier process) so that the paper at ref has the PDF pdf, any
// vault path. Everything else in the cache, its stamps included, is kept,
// so the cache is as fresh as it was.
func ForgeCatalogue(vault, ref, pdf string) error {
	d, err := safefs.OpenDir(filepath.Join(vault, agentero.Cache), 0)
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	defer d.Close()
	body, err := d.ReadSealed("catalogue.bin", 256<<20)
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	r := &catalogueReader{b: body}
	version, stamps, papers := r.varint(), r.varint(), r.varint()
	if r.err != nil || version != forgedVersion {
		return fmt.Errorf("hostilevault: catalogue cache of version %d, not %d", version, forgedVersion)
	}
	for range stamps {
		r.str()
		r.varint()
		r.uvarint()
		r.varint()
		r.byte()
	}
	if r.err != nil {
		return r.err
	}
	out := slices.Clone(body[:len(body)-len(r.b)])
	str := func(s string) {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	names := func() {
		n := r.uvarint()
		out = binary.AppendUvarint(out, n)
		for range n {
			str(r.str())
		}
	}
	found := false
	for range papers {
		paper, paperPDF := r.str(), r.str()
		if paper == ref {
			paperPDF, found = pdf, true
		}
		str(paper)
		str(paperPDF)
		str(r.str()) // title
		names()      // authors
		out = binary.AppendVarint(out, r.varint())
		for range 4 { // date, abstract, DOI, arXiv id
			str(r.str())
		}
		names()       // tags
		for range 3 { // publication, metadata error, heading
			str(r.str())
		}
		out = append(out, r.byte())
		if r.err != nil {
			return r.err
		}
	}
	// The titles learnt of PDFs follow the papers: kept as they are.
	out = append(out, r.b...)
	if !found {
		return fmt.Errorf("hostilevault: no paper %s in the catalogue cache", ref)
	}
	return d.WriteSealed("catalogue.bin", out)
}

// forgedRecord is the PDF cache's path record.
type forgedRecord struct {
	Path    string
	Size    int64
	ModTime int64
	SHA256  string
	ID      string `json:",omitempty"`
}

// ForgePDFPathRecord makes the PDF cache's path record of the vault path
// from name the cached text of the vault path to: the record of to (written
// when an earlier process read it) is copied under from's name, with
// from's path, size and modification time, as a record copied from
// elsewhere would be.
func ForgePDFPathRecord(vault, from, to string) error {
	d, err := safefs.OpenDir(filepath.Join(vault, agentero.Cache, "pdf"), 0)
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	defer d.Close()
	b, err := d.ReadFile(recordName(to), 64<<10)
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	var rec forgedRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	st, err := os.Stat(filepath.Join(vault, filepath.FromSlash(from)))
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	rec.Path, rec.Size, rec.ModTime = from, st.Size(), st.ModTime().UnixNano()
	if b, err = json.Marshal(rec); err != nil {
		return err
	}
	return d.WriteFile(recordName(from), b)
}

func recordName(path string) string {
	h := sha256.Sum256([]byte(path))
	return "paths/" + hex.EncodeToString(h[:16]) + ".json"
}
