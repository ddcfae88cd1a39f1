package hostilevault

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/safefs"
)

// The forgers below write the SDK's own caches as someone who knows their
// format could (a synced folder, an unpacked archive, another machine):
// well-formed, sealed, and pointing a granted document at another one.
// The layouts are written out here, not imported, as a forger would.

type forgedHead struct {
	Version        int
	Stamps, Papers int
}

type forgedStamp struct {
	Path  string
	MTime time.Time
	Size  int64
	Dir   bool
}

type forgedPaper struct {
	Ref, PDF string
	Meta     struct {
		Title       string
		Authors     []string
		Year        int
		Date        string
		Abstract    string
		DOI         string
		ArXivID     string
		Tags        []string
		Publication string
	}
	MetaErr           string
	HasNotes, HasBody bool
	Heading           string
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
	body, err := d.ReadSealed("catalogue.gob", 256<<20)
	if err != nil {
		return fmt.Errorf("hostilevault: %w", err)
	}
	dec := gob.NewDecoder(bytes.NewReader(body))
	var head forgedHead
	if err := dec.Decode(&head); err != nil {
		return fmt.Errorf("hostilevault: catalogue head: %w", err)
	}
	var out bytes.Buffer
	enc := gob.NewEncoder(&out)
	if err := enc.Encode(head); err != nil {
		return err
	}
	for range head.Stamps {
		var s forgedStamp
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("hostilevault: catalogue stamp: %w", err)
		}
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	found := false
	for range head.Papers {
		var p forgedPaper
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("hostilevault: catalogue paper: %w", err)
		}
		if p.Ref == ref {
			p.PDF, found = pdf, true
		}
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	if err := dec.Decode(new(forgedHead)); !errors.Is(err, io.EOF) {
		return errors.New("hostilevault: catalogue has more than its head says")
	}
	if !found {
		return fmt.Errorf("hostilevault: no paper %s in the catalogue cache", ref)
	}
	return d.WriteSealed("catalogue.gob", out.Bytes())
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
