package catalog

import (
	"encoding/binary"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// A PDF's own title (its title block, else its Info or XMP title) costs an
// extraction to learn. The Vault remembers what was learnt of each PDF,
// for the file of that size and modification time, and keeps it in the
// catalogue cache, so that a plan, a listing and the next process title a
// paper without metadata.json, or a loose PDF, as its PDF does without
// reading it again.

// learntTitle is the title learnt of a PDF file of size bytes modified at
// mtime; "" when the PDF shows none.
type learntTitle struct {
	title string
	size  int64
	mtime time.Time
}

// maxLearntTitle bounds a learnt title in bytes, in memory and in the
// cache: far above any real title.
const maxLearntTitle = 2000

// LearnTitle records title as the title of the PDF at the vault-relative
// path pdf while it is the file st describes (same size and modification
// time). An empty title is recorded too: the PDF shows none, and is not
// read again for one. What is learnt is written with the catalogue cache
// when the catalogue is next written, and at Close: never by a timer, so
// that nothing is written after a Vault is left without Close.
func (v *Vault) LearnTitle(pdf string, st fs.FileInfo, title string) {
	if st == nil || !titlePath(pdf) {
		return
	}
	title = textnorm.Line(title)
	if len(title) > maxLearntTitle {
		title, _ = textnorm.Truncate(title, maxLearntTitle/4)
	}
	t := learntTitle{title: title, size: st.Size(), mtime: st.ModTime()}
	v.tmu.Lock()
	old, had := v.titles[pdf]
	changed := !had || old.title != t.title || old.size != t.size || !old.mtime.Equal(t.mtime)
	if changed {
		if v.titles == nil {
			v.titles = map[string]learntTitle{}
		}
		v.titles[pdf] = t
	}
	v.dirty = v.dirty || changed
	v.tmu.Unlock()
}

// LearntTitle returns the title learnt of the PDF at the vault-relative
// path pdf (see LearnTitle) and true, when the file there is still the one
// it was learnt from; else "" and false.
func (v *Vault) LearntTitle(pdf string) (string, bool) {
	v.tmu.Lock()
	t, ok := v.titles[pdf]
	v.tmu.Unlock()
	if !ok {
		return "", false
	}
	st, err := v.fs.Stat(pdf)
	if err != nil || !st.Mode().IsRegular() || st.Size() != t.size || !st.ModTime().Equal(t.mtime) {
		return "", false
	}
	return t.title, true
}

// flushTitles writes the catalogue in hand with the titles learnt since
// the cache was last written, if any. Close calls it.
func (v *Vault) flushTitles() {
	v.tmu.Lock()
	dirty := v.dirty
	v.tmu.Unlock()
	if !dirty {
		return
	}
	v.mu.Lock()
	cat := v.cat
	v.mu.Unlock()
	if cat != nil {
		v.storeCache(cat)
	}
}

// adoptTitles takes the titles a cached catalogue carried, keeping any
// learnt since.
func (v *Vault) adoptTitles(c *Catalogue) {
	if len(c.titles) == 0 {
		return
	}
	v.tmu.Lock()
	defer v.tmu.Unlock()
	if v.titles == nil {
		v.titles = make(map[string]learntTitle, len(c.titles))
	}
	for p, t := range c.titles {
		if _, ok := v.titles[p]; !ok {
			v.titles[p] = t
		}
	}
	c.titles = nil
}

// titlePath reports whether p can name a PDF whose title is learnt: a
// clean vault-relative path ending in .pdf.
func titlePath(p string) bool {
	clean, err := safefs.Clean(p)
	return err == nil && clean == p && p != "." && strings.EqualFold(path.Ext(p), ".pdf")
}

// appendTitles lays out the learnt titles after a catalogue's papers
// (see encodeCatalogue): their count, then each PDF's path, modification
// time (seconds, nanoseconds), size and title.
func (v *Vault) appendTitles(b []byte) []byte {
	v.tmu.Lock()
	defer v.tmu.Unlock()
	v.dirty = false
	if len(v.titles) == 0 {
		return b
	}
	b = binary.AppendVarint(b, int64(len(v.titles)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for p, t := range v.titles {
		str(p)
		b = binary.AppendVarint(b, t.mtime.Unix())
		b = binary.AppendUvarint(b, uint64(t.mtime.Nanosecond()))
		b = binary.AppendVarint(b, t.size)
		str(t.title)
	}
	return b
}

// minTitleBytes is the smallest encoding of a learnt title: a path of
// five bytes ("x.pdf"), seconds, nanoseconds, size and an empty title.
const minTitleBytes = 1 + 5 + 1 + 1 + 1 + 1

// parseTitles reads the learnt titles after a cached catalogue's papers,
// if any, within budget; it reports false when they are damaged. Nothing
// in them is trusted but their form: LearntTitle checks each PDF's size
// and time before it gives its title.
func parseTitles(d *cacheDecoder, budget *int64) (map[string]learntTitle, bool) {
	if len(d.s) == 0 {
		return nil, true
	}
	d.value()
	n := d.int()
	if !d.ok() || n < 1 || n > len(d.s)/minTitleBytes {
		return nil, false
	}
	out := make(map[string]learntTitle, min(n, maxCacheHint))
	for range n {
		d.value()
		p := d.str()
		sec, nsec := d.varint(), d.uvarint()
		size := d.varint()
		title := d.str()
		if !d.ok() || nsec >= 1e9 || size < 0 || !titlePath(p) || len(title) > maxLearntTitle || textnorm.Line(title) != title {
			return nil, false
		}
		if _, dup := out[p]; dup {
			return nil, false
		}
		if *budget -= 64 + int64(len(p)+len(title)); *budget < 0 {
			return nil, false
		}
		out[p] = learntTitle{title: title, size: size, mtime: time.Unix(sec, int64(nsec))}
	}
	return out, true
}
