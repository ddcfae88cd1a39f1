package main

import "testing"

// TestLinkZotero: Zotero's URIs are links the page opens as they are (they
// open Zotero); a zotero:// URI the SDK never hands out opens nothing.
func TestLinkZotero(t *testing.T) {
	for _, uri := range []string{
		"zotero://open-pdf/library/items/QTBRV54N?page=2",
		"zotero://open-pdf/library/items/QTBRV54N?page=2&annotation=NXDAMBZG",
		"zotero://select/groups/5550123/items/2E8KAQTC",
		"zotero://open-pdf/library/items/E77HNKG7?cfi=epubcfi%28%2F6%2F14%21%2F4%2F2%2F4%2C%2F1%3A0%2C%2F1%3A16%29",
	} {
		if l := link(uri); l.Href != uri || !l.External {
			t.Errorf("link(%q) = %+v", uri, l)
		}
	}
	for _, uri := range []string{"zotero://delete/library/items/QTBRV54N", "zotero://open-pdf/library/items/QTBRV54N?page=0",
		"zotero://open-pdf/library/items/E77HNKG7?cfi=epubcfi(/6/14)"} {
		if l := link(uri); l.Href != "" {
			t.Errorf("link(%q) opens %q", uri, l.Href)
		}
	}
}
