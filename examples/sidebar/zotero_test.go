package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/examples/internal/corpus"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/usage"
)

// TestZotero: -zotero and -zotero-base point the sidebar at a Zotero
// library; a turn that mentions a collection of it is planned, served by
// the agentero-context server the sidebar starts, and its sources are
// Zotero's URIs in the grant, each a link that opens Zotero. A folder
// without zotero.sqlite is refused before anything is served.
func TestZotero(t *testing.T) {
	dev := corpus.ZoteroDev(t)
	// UseZotero sets these for the server it starts; they are put back.
	t.Setenv(zotero.EnvDir, "")
	t.Setenv(zotero.EnvBaseDir, "")
	t.Setenv(zotero.EnvProfile, "")

	err := run(t.Context(), []string{"-zotero", t.TempDir()}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "no zotero.sqlite there") {
		t.Fatalf("-zotero on a folder without zotero.sqlite: %v", err)
	}

	c, err := parseFlags([]string{"-zotero", filepath.Join(dev, "Zotero-wal"), "-zotero-base", filepath.Join(dev, "Attachments")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.zotero != filepath.Join(dev, "Zotero-wal") || os.Getenv(zotero.EnvDir) != c.zotero {
		t.Fatalf("-zotero: config %q, environment %q", c.zotero, os.Getenv(zotero.EnvDir))
	}
	s, ts := testServer(t, sampleVault(t), 0)
	evs := askTurn(t, s, ts, "reduce invocation", scope{Mentions: []string{"zotero:collections/Thesis"}})
	if errs := ofType(evs, evError); len(errs) > 0 {
		t.Fatalf("the turn failed: %s", errs[0].Text)
	}
	all, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(all), dev) {
		t.Error("an event names the Zotero library's absolute path")
	}
	src := ofType(evs, evSources)
	if len(src) != 1 {
		t.Fatalf("%d sources events: %s", len(src), describeEvents(evs))
	}
	found := 0
	for _, g := range src[0].Sources.Groups {
		for _, it := range g.Sources {
			if !strings.HasPrefix(it.URI, "zotero://") {
				continue
			}
			found++
			if it.Href != it.URI || !it.External || it.Place != usage.InGrant {
				t.Errorf("source %s: opens %q, external %v, place %s", it.URI, it.Href, it.External, it.Place)
			}
		}
	}
	if found == 0 {
		t.Fatalf("no Zotero source in the turn: %s", all)
	}
}
