package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/examples/internal/corpus"
)

// treeSum hashes a folder tree: names, modes, times and bytes.
func treeSum(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		io.WriteString(h, rel+"\x00"+info.Mode().String()+"\x00"+info.ModTime().String()+"\x00")
		if d.Type().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(h, f)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestZotero runs the demo on a Zotero library that a running Zotero left
// with its newest changes in the WAL: the plan grants zotero:, the
// scripted turn's server (this executable, a subprocess on stdio) finds a
// highlight by its words and cites its page by Zotero's own URI, says once
// why two PDFs were not read, and Zotero's folders are unchanged, with no
// file added.
func TestZotero(t *testing.T) {
	dev := corpus.ZoteroDev(t)
	before := treeSum(t, dev)
	r := mustRun(t, t.TempDir(), "", "-zotero", filepath.Join(dev, "Zotero-wal"), "-zotero-base", filepath.Join(dev, "Attachments"), "-ask", "reduce invocation")
	for _, want := range []string{
		"source         zotero    zotero:library  Zotero library",
		"zotero://open-pdf/library/items/QTBRV54N?page=2",
		"could not read zotero:items/2RWBKLPW: a linked file outside the Zotero data and base directories is not read",
		"could not read zotero:items/UJQIHUFI: the attachment's file is missing",
	} {
		if n := strings.Count(r.stdout, want); n == 0 || strings.HasPrefix(want, "could not") && n != 1 {
			t.Errorf("the output has %q %d times:\n%s", want, n, r.stdout)
		}
	}
	// Read back from usage.jsonl, the Zotero URIs are sources of the
	// grant, each a link that opens Zotero.
	j := mustRun(t, t.TempDir(), "", "-zotero", filepath.Join(dev, "Zotero-wal"), "-zotero-base", filepath.Join(dev, "Attachments"), "-ask", "reduce invocation", "-json")
	var out struct {
		Sources []sourceLink `json:"sources"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, s := range out.Sources {
		if strings.HasPrefix(s.URI, "zotero://") {
			seen = true
			if !s.InGrant || s.URL != s.URI {
				t.Errorf("source %+v: want in the grant, opened as itself", s)
			}
		}
	}
	if !seen {
		t.Errorf("no Zotero URI among the turn's sources: %+v", out.Sources)
	}
	if strings.Contains(r.stdout, dev) || strings.Contains(r.stderr, dev) {
		t.Error("the output names the Zotero folder")
	}
	if after := treeSum(t, dev); after != before {
		t.Fatal("Zotero's folders changed")
	}
	bad := run(t, t.TempDir(), "", "-zotero", t.TempDir())
	checkOneLineError(t, bad, "no zotero.sqlite there")
}
