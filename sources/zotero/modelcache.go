package zotero

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/researchctx/researchctx/internal/safefs"
)

// A new process's first call would copy the database and read it whole
// with SQLite, most of a first answer's time at 10,000 items. The model
// read from the last snapshot is kept in the cache beside the index, with
// its items' index stamps, under the database's stamp, and a new process
// whose database still has that stamp reads it from there instead. It
// holds what the index holds anyway (the library's metadata, notes and
// annotations), in the SDK's own cache; a damaged file, or one of another
// library, version or stamp, is not used.

// modelName is the cached model's file in the library's cache folder.
const modelName = "model"

// modelMagic starts the cached model; its last byte is the format's
// version, changed whenever what the file holds changes.
const modelMagic = "zotero-model\x01"

// maxModelBytes bounds the cached model read back.
const maxModelBytes = 1 << 30

// saveModel has the snapshot's model written to the cache under stamp, in
// the background: a failure only costs the next process the copy. Saves
// queued while one runs are replaced by the latest.
func (l *Library) saveModel(s *Snapshot, stamp string) {
	if l.cacheDir == "" {
		return
	}
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	l.toSave, l.toSaveStamp = s, stamp
	if l.saving {
		return
	}
	l.saving = true
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		for {
			l.saveMu.Lock()
			s, stamp := l.toSave, l.toSaveStamp
			l.toSave = nil
			if s == nil {
				l.saving = false
				l.saveMu.Unlock()
				return
			}
			l.saveMu.Unlock()
			l.writeModel(s, stamp)
		}
	}()
}

// flush waits for the models being saved in the background.
func (l *Library) flush() { l.bg.Wait() }

// close waits for the work the library does in the background and stops
// its index's build, for a test that removes its cache folder.
func (l *Library) close() {
	l.flush()
	if l.ix != nil {
		l.ix.Close()
	}
}

// writeModel writes the snapshot's model under stamp.
func (l *Library) writeModel(s *Snapshot, stamp string) {
	e := modelEnc{b: make([]byte, 0, 1<<20)}
	e.b = append(e.b, modelMagic...)
	e.str(l.id)
	e.str(stamp)
	e.int(s.schema)
	e.int(s.userLib)
	e.int(len(s.groups))
	for _, g := range s.groups {
		e.int(g.id)
		e.int(g.libraryID)
		e.str(g.name)
	}
	e.int(len(s.items))
	for _, it := range s.items {
		e.int(it.id)
		e.int(it.libraryID)
		e.int(it.parentID)
		e.str(it.Key)
		e.str(it.Type)
		if it.trashed {
			e.int(1)
		} else {
			e.int(0)
		}
		e.int(len(it.Fields))
		for k, v := range it.Fields {
			e.str(k)
			e.str(v)
		}
		e.int(len(it.Creators))
		for _, c := range it.Creators {
			e.str(c.Type)
			e.str(c.FirstName)
			e.str(c.LastName)
		}
		e.strs(it.Tags)
		e.int(len(it.colls))
		for _, c := range it.colls {
			e.int(c)
		}
		e.strs(it.related)
		e.int(it.linkMode)
		e.int(it.annType)
		for _, v := range []string{it.contentType, it.filePath, it.noteHTML, it.noteTitle,
			it.annText, it.annCmt, it.annColor, it.annLabel, it.annAuthor, it.annSort, it.annPos} {
			e.str(v)
		}
		stamp := ""
		if !it.trashed && s.top(it) == it {
			stamp = s.modelStamp(it)
		}
		e.str(stamp)
	}
	e.int(len(s.colls))
	for _, c := range s.colls {
		e.int(c.id)
		e.int(c.libraryID)
		e.int(c.parent)
		e.str(c.Key)
		e.str(c.Name)
		e.int(len(c.items))
		for _, id := range c.items {
			e.int(id)
		}
	}
	d, err := safefs.OpenDir(l.cacheDir, safefs.Create)
	if err != nil {
		return
	}
	defer d.Close()
	d.WriteSealedFunc(modelName, func(w io.Writer) error {
		_, err := w.Write(e.b)
		return err
	})
}

// errNoModel is a cached model that is absent, damaged or of another
// stamp, library or version.
var errNoModel = errors.New("no cached model")

// loadModel returns the snapshot the cache holds for stamp, with its
// items' stamps.
func (l *Library) loadModel(stamp string) (*Snapshot, error) {
	if l.cacheDir == "" {
		return nil, errNoModel
	}
	d, err := safefs.OpenDir(l.cacheDir, 0)
	if err != nil {
		return nil, errNoModel
	}
	data, err := d.ReadSealed(modelName, maxModelBytes)
	d.Close()
	if err != nil || len(data) < len(modelMagic) || string(data[:len(modelMagic)]) != modelMagic {
		return nil, errNoModel
	}
	// One string for the whole file: every string of the model is a view
	// of it.
	body := data[len(modelMagic):]
	dec := &modelDec{b: body, s: string(body)}
	if dec.str() != l.id || dec.str() != stamp || dec.err != nil {
		return nil, errNoModel
	}
	s := &Snapshot{lib: l, schema: dec.int(), userLib: dec.int(),
		groups: map[int]*group{}, groupIDs: map[int]int{}, colls: map[int]*Collection{}, tagged: map[string][]*Item{}}
	if s.schema < minSchema || s.schema > maxSchema {
		return nil, errNoModel
	}
	for n := dec.count(); n > 0 && dec.err == nil; n-- {
		g := &group{id: dec.int(), libraryID: dec.int(), name: dec.str()}
		s.groups[g.libraryID], s.groupIDs[g.id] = g, g.libraryID
	}
	n := dec.count()
	s.items, s.byKey = make(map[int]*Item, n), make(map[string]*Item, n)
	stamps := make(map[*Item]string, n)
	for ; n > 0 && dec.err == nil; n-- {
		it := &Item{id: dec.int(), libraryID: dec.int(), parentID: dec.int(), Key: dec.str(), Type: dec.str(), trashed: dec.int() == 1}
		nf := dec.count()
		it.Fields = make(map[string]string, nf)
		for ; nf > 0 && dec.err == nil; nf-- {
			k := dec.str()
			it.Fields[k] = dec.str()
		}
		for nc := dec.count(); nc > 0 && dec.err == nil; nc-- {
			it.Creators = append(it.Creators, Creator{Type: dec.str(), FirstName: dec.str(), LastName: dec.str()})
		}
		it.Tags = dec.strs()
		for nc := dec.count(); nc > 0 && dec.err == nil; nc-- {
			it.colls = append(it.colls, dec.int())
		}
		it.related = dec.strs()
		it.linkMode, it.annType = dec.int(), dec.int()
		it.contentType, it.filePath, it.noteHTML, it.noteTitle = dec.str(), dec.str(), dec.str(), dec.str()
		it.annText, it.annCmt, it.annColor, it.annLabel = dec.str(), dec.str(), dec.str(), dec.str()
		it.annAuthor, it.annSort, it.annPos = dec.str(), dec.str(), dec.str()
		if st := dec.str(); st != "" {
			stamps[it] = st
		}
		s.items[it.id] = it
	}
	for n := dec.count(); n > 0 && dec.err == nil; n-- {
		c := &Collection{id: dec.int(), libraryID: dec.int(), parent: dec.int(), Key: dec.str(), Name: dec.str()}
		for ni := dec.count(); ni > 0 && dec.err == nil; ni-- {
			c.items = append(c.items, dec.int())
		}
		s.colls[c.id] = c
	}
	if dec.err != nil || dec.off != len(dec.b) {
		return nil, errNoModel
	}
	s.link()
	l.stampMu.Lock()
	l.stampSnap, l.stamps = s, stamps
	l.stampMu.Unlock()
	return s, nil
}

// modelEnc appends a cached model's values.
type modelEnc struct{ b []byte }

func (e *modelEnc) int(v int) { e.b = binary.AppendVarint(e.b, int64(v)) }

func (e *modelEnc) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *modelEnc) strs(ss []string) {
	e.int(len(ss))
	for _, s := range ss {
		e.str(s)
	}
}

// modelDec reads a cached model's values; the first error sticks and
// every later read returns a zero value. b and s are the same bytes: the
// strings read are views of s.
type modelDec struct {
	b   []byte
	s   string
	off int
	err error
}

var errModel = errors.New("malformed cached model")

func (d *modelDec) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.err = errModel
		return 0
	}
	d.off += n
	return int(v)
}

// count reads a length, which cannot be more than the bytes left.
func (d *modelDec) count() int {
	n := d.int()
	if n < 0 || n > len(d.b)-d.off {
		d.err = errModel
		return 0
	}
	return n
}

func (d *modelDec) str() string {
	if d.err != nil {
		return ""
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || v > uint64(len(d.b)-d.off-n) {
		d.err = errModel
		return ""
	}
	start := d.off + n
	d.off = start + int(v)
	return d.s[start:d.off]
}

func (d *modelDec) strs() []string {
	var out []string
	for n := d.count(); n > 0 && d.err == nil; n-- {
		out = append(out, d.str())
	}
	return out
}
