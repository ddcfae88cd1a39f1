package zotero

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"
)

// Snapshot is a Zotero library as its database held it at one moment:
// every library (the user's and the groups'), item, collection, tag,
// attachment, note and annotation, joined by names (itemTypes.typeName,
// fields.fieldName), not by Zotero's numeric ids.
type Snapshot struct {
	lib    *Library
	schema int

	userLib  int            // libraryID of the user's library
	groups   map[int]*group // by libraryID
	groupIDs map[int]int    // groupID → libraryID

	items  map[int]*Item    // by itemID, trash included
	byKey  map[string]*Item // by library prefix + key, trash excluded
	colls  map[int]*Collection
	tagged map[string][]*Item // by library prefix + tag name
}

type group struct {
	id, libraryID int
	name          string
}

// Item is one row of items with what hangs on it. Regular items carry
// metadata; attachments, notes and annotations are items too, with a
// parent.
type Item struct {
	id, libraryID int
	Key           string
	Type          string // itemTypes.typeName
	parentID      int
	trashed       bool

	Fields   map[string]string // fieldName → value
	Creators []Creator
	Tags     []string
	colls    []int
	related  []string // dc:relation objects (URIs)

	// attachment
	linkMode    int
	contentType string
	filePath    string // itemAttachments.path as stored

	// note
	noteHTML  string
	noteTitle string

	// annotation
	annType   int
	annText   string
	annCmt    string
	annColor  string
	annLabel  string
	annAuthor string
	annSort   string
	annPos    string

	children []*Item // attachments and notes; annotations on an attachment
}

// Creator is an item's author, editor, ...
type Creator struct {
	Type      string
	FirstName string
	LastName  string // the whole name for a single-field creator
}

// Name returns "First Last" (or the single-field name).
func (c Creator) Name() string {
	return strings.TrimSpace(c.FirstName + " " + c.LastName)
}

// Collection is one collection.
type Collection struct {
	id, libraryID, parent int
	Key, Name             string
	items                 []int
	subs                  []int
}

// Attachment link modes.
const (
	linkImportedFile = 0
	linkImportedURL  = 1
	linkLinkedFile   = 2
	linkLinkedURL    = 3
)

// kind says what an item is to the driver.
func (it *Item) isAttachment() bool { return it.Type == "attachment" }
func (it *Item) isNote() bool       { return it.Type == "note" }
func (it *Item) isAnnotation() bool { return it.Type == "annotation" }
func (it *Item) isRegular() bool    { return !it.isAttachment() && !it.isNote() && !it.isAnnotation() }

// isPDF reports a PDF attachment.
func (it *Item) isPDF() bool {
	return it.isAttachment() && (it.contentType == "application/pdf" ||
		it.contentType == "" && strings.HasSuffix(strings.ToLower(it.filePath), ".pdf"))
}

// Title returns the item's title (a note's is its first line).
func (it *Item) Title() string {
	if it.isNote() {
		return it.noteTitle
	}
	if t := it.Fields["title"]; t != "" {
		return t
	}
	for _, f := range []string{"caseName", "subject", "nameOfAct"} {
		if t := it.Fields[f]; t != "" {
			return t
		}
	}
	return ""
}

func (s *Snapshot) libPrefix(libraryID int) string {
	if g := s.groups[libraryID]; g != nil {
		return "zotero:groups/" + strconv.Itoa(g.id) + "/"
	}
	return "zotero:"
}

// path is an item's document path: zotero:items/<KEY> or
// zotero:groups/<groupID>/items/<KEY>.
func (s *Snapshot) path(it *Item) string { return s.libPrefix(it.libraryID) + "items/" + it.Key }

// readAll reads the whole library from db.
func readAll(ctx context.Context, db *sql.DB) (*Snapshot, error) {
	s := &Snapshot{
		groups: map[int]*group{}, groupIDs: map[int]int{},
		items: map[int]*Item{}, byKey: map[string]*Item{}, colls: map[int]*Collection{}, tagged: map[string][]*Item{},
	}
	q := func(query string, scan func(*sql.Rows) error) error {
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	s.userLib = -1
	if err := q(`SELECT libraryID, type FROM libraries`, func(r *sql.Rows) error {
		var id int
		var typ string
		if err := r.Scan(&id, &typ); err != nil {
			return err
		}
		if typ == "user" && s.userLib < 0 {
			s.userLib = id
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT groupID, libraryID, name FROM groups`, func(r *sql.Rows) error {
		g := &group{}
		if err := r.Scan(&g.id, &g.libraryID, &g.name); err != nil {
			return err
		}
		s.groups[g.libraryID], s.groupIDs[g.id] = g, g.libraryID
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT i.itemID, i.libraryID, i.key, t.typeName FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID`, func(r *sql.Rows) error {
		it := &Item{Fields: map[string]string{}}
		if err := r.Scan(&it.id, &it.libraryID, &it.Key, &it.Type); err != nil {
			return err
		}
		s.items[it.id] = it
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT itemID FROM deletedItems`, func(r *sql.Rows) error {
		var id int
		if err := r.Scan(&id); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.trashed = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN fields f ON f.fieldID = d.fieldID JOIN itemDataValues v ON v.valueID = d.valueID`, func(r *sql.Rows) error {
		var id int
		var name string
		var val sql.NullString
		if err := r.Scan(&id, &name, &val); err != nil {
			return err
		}
		if it := s.items[id]; it != nil && val.Valid {
			it.Fields[name] = val.String
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT ic.itemID, ct.creatorType, c.firstName, c.lastName FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID ORDER BY ic.itemID, ic.orderIndex`, func(r *sql.Rows) error {
		var id int
		var typ string
		var first, last sql.NullString
		if err := r.Scan(&id, &typ, &first, &last); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.Creators = append(it.Creators, Creator{Type: typ, FirstName: first.String, LastName: last.String})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID ORDER BY it.itemID, t.name`, func(r *sql.Rows) error {
		var id int
		var name string
		if err := r.Scan(&id, &name); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.Tags = append(it.Tags, name)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT collectionID, collectionName, parentCollectionID, libraryID, key FROM collections`, func(r *sql.Rows) error {
		c := &Collection{}
		var parent sql.NullInt64
		if err := r.Scan(&c.id, &c.Name, &parent, &c.libraryID, &c.Key); err != nil {
			return err
		}
		c.parent = int(parent.Int64)
		s.colls[c.id] = c
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT collectionID, itemID FROM collectionItems ORDER BY collectionID, orderIndex, itemID`, func(r *sql.Rows) error {
		var cid, id int
		if err := r.Scan(&cid, &id); err != nil {
			return err
		}
		if c := s.colls[cid]; c != nil {
			c.items = append(c.items, id)
		}
		if it := s.items[id]; it != nil {
			it.colls = append(it.colls, cid)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments`, func(r *sql.Rows) error {
		var id int
		var parent, mode sql.NullInt64
		var ct, p sql.NullString
		if err := r.Scan(&id, &parent, &mode, &ct, &p); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.parentID, it.linkMode, it.contentType, it.filePath = int(parent.Int64), int(mode.Int64), ct.String, p.String
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT itemID, parentItemID, note, title FROM itemNotes`, func(r *sql.Rows) error {
		var id int
		var parent sql.NullInt64
		var note, title sql.NullString
		if err := r.Scan(&id, &parent, &note, &title); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.parentID, it.noteHTML, it.noteTitle = int(parent.Int64), note.String, title.String
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT itemID, parentItemID, type, authorName, text, comment, color, pageLabel, sortIndex, position FROM itemAnnotations`, func(r *sql.Rows) error {
		var id, parent, typ int
		var author, text, cmt, color, label, sortIx, pos sql.NullString
		if err := r.Scan(&id, &parent, &typ, &author, &text, &cmt, &color, &label, &sortIx, &pos); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.parentID, it.annType = parent, typ
			it.annAuthor, it.annText, it.annCmt, it.annColor = author.String, text.String, cmt.String, color.String
			it.annLabel, it.annSort, it.annPos = label.String, sortIx.String, pos.String
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := q(`SELECT r.itemID, r.object FROM itemRelations r JOIN relationPredicates p ON p.predicateID = r.predicateID WHERE p.predicate = 'dc:relation'`, func(r *sql.Rows) error {
		var id int
		var obj string
		if err := r.Scan(&id, &obj); err != nil {
			return err
		}
		if it := s.items[id]; it != nil {
			it.related = append(it.related, obj)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	s.link()
	return s, nil
}

// link hangs children on their parents, puts the trash's children in the
// trash too, and indexes what is not in it by key and by tag.
func (s *Snapshot) link() {
	ids := make([]int, 0, len(s.items))
	for id := range s.items {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		it := s.items[id]
		if p := s.items[it.parentID]; p != nil && it.parentID != 0 && p != it {
			p.children = append(p.children, it)
		}
	}
	// An item is in the trash when it or an ancestor is (a chain is at
	// most three deep: annotation → attachment → item; a cycle ends).
	for _, id := range ids {
		it := s.items[id]
		for p, n := it, 0; p != nil && n < 4; p, n = s.items[p.parentID], n+1 {
			if p.trashed {
				it.trashed = true
				break
			}
			if p.parentID == 0 {
				break
			}
		}
	}
	for _, id := range ids {
		it := s.items[id]
		if it.trashed {
			continue
		}
		s.byKey[s.libPrefix(it.libraryID)+it.Key] = it
		if it.isRegular() || it.isNote() && it.parentID == 0 {
			for _, t := range it.Tags {
				k := s.libPrefix(it.libraryID) + t
				s.tagged[k] = append(s.tagged[k], it)
			}
		}
	}
	for _, c := range s.colls {
		if p := s.colls[c.parent]; p != nil && c.parent != 0 {
			p.subs = append(p.subs, c.id)
		}
	}
	for _, c := range s.colls {
		sort.Ints(c.subs)
	}
}

// item returns the item at a document path, or nil (trash excluded).
func (s *Snapshot) item(p string) *Item {
	lib, key, ok := splitItemPath(p)
	if !ok {
		return nil
	}
	return s.byKey[lib+key]
}

// splitItemPath splits zotero:items/<KEY> or zotero:groups/<id>/items/<KEY>
// into its library prefix and key.
func splitItemPath(p string) (lib, key string, ok bool) {
	i := strings.LastIndex(p, "items/")
	if i < 0 || !strings.HasPrefix(p, "zotero:") {
		return "", "", false
	}
	lib, key = p[:i], p[i+len("items/"):]
	if len(key) != 8 || strings.Contains(key, "/") {
		return "", "", false
	}
	if lib != "zotero:" {
		rest, ok := strings.CutPrefix(lib, "zotero:groups/")
		id, tail, _ := strings.Cut(rest, "/")
		if !ok || tail != "" || id == "" || strings.Trim(id, "0123456789") != "" {
			return "", "", false
		}
	}
	return lib, key, true
}

// top returns the regular item (or standalone note) an item belongs to.
func (s *Snapshot) top(it *Item) *Item {
	for n := 0; n < 4 && it.parentID != 0; n++ {
		p := s.items[it.parentID]
		if p == nil || p == it {
			break
		}
		it = p
	}
	return it
}

// year returns the first four-digit year of a Zotero date ("2004-12",
// "December 2004", "2004-00-00 2004").
func year(date string) int {
	for i := 0; i+4 <= len(date); i++ {
		if i > 0 && isDigit(date[i-1]) {
			continue
		}
		if isDigit(date[i]) && isDigit(date[i+1]) && isDigit(date[i+2]) && isDigit(date[i+3]) && (i+4 == len(date) || !isDigit(date[i+4])) {
			n, _ := strconv.Atoi(date[i : i+4])
			return n
		}
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// citationKey returns the item's citation key: the citationKey field
// (Zotero 7.1+), else a "Citation Key:" line of Extra.
func (it *Item) citationKey() string {
	if k := strings.TrimSpace(it.Fields["citationKey"]); k != "" {
		return k
	}
	for _, line := range strings.Split(it.Fields["extra"], "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "citation key") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
