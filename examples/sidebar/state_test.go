package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
)

func getJSON(t *testing.T, client *http.Client, u string, v any) int {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// TestComplete: the @-mention autocomplete lists the vault's visible
// folders and files, papers with their titles, and never a dot entry or
// the SDK's private folder.
func TestComplete(t *testing.T) {
	vault := sampleVault(t)
	for _, p := range []string{".agentero/x-secret.md", "notes/.x-secret.md", ".x-secret/a.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(vault, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vault, p), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, ts := testServer(t, vault, 0)
	tests := []struct {
		q    string
		want []treeEntry
	}{
		{"survey", []treeEntry{{Path: "papers/2406.09876", Kind: grant.KindPaper, Title: "Sparse Attention for Long Documents: A Short Survey"}}},
		{"@reading-l", []treeEntry{{Path: "reading-list", Kind: grant.KindFile}}},
		{"notes arch", []treeEntry{{Path: "notes/archive", Kind: grant.KindDirectory}, {Path: "notes/archive/2023-q4.md", Kind: grant.KindFile}, {Path: "notes/archive/whiteboard.png", Kind: grant.KindFile}}},
		{"x-secret", []treeEntry{}},
		{".agentero", []treeEntry{}},
	}
	for _, tt := range tests {
		var got []treeEntry
		if code := getJSON(t, ts.Client(), ts.URL+"/api/complete?q="+url.QueryEscape(tt.q), &got); code != http.StatusOK {
			t.Fatalf("complete %q: %d", tt.q, code)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("complete %q (-want +got):\n%s", tt.q, diff)
		}
	}
}

// TestText: the document view gets the current paper's text page by page;
// a path that is not a paper of the vault is refused.
func TestText(t *testing.T) {
	_, ts := testServer(t, sampleVault(t), 0)
	var out textOut
	if code := getJSON(t, ts.Client(), ts.URL+"/api/text?paper="+url.QueryEscape(samplePaper), &out); code != http.StatusOK {
		t.Fatalf("text: %d", code)
	}
	if out.Title == "" || out.Href != "/doc/papers/2401.01234/2401.01234.pdf" || len(out.Pages) < 2 || out.Pages[0].Page != 1 {
		t.Fatalf("text: %+v", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out.Pages[0].Text), " "), sampleQuote) {
		t.Error("page 1 lacks the sample selection")
	}
	for _, p := range []string{"notes", "../papers/2401.01234", "/etc", ".agentero", "papers/nowhere"} {
		if code := getJSON(t, ts.Client(), ts.URL+"/api/text?paper="+url.QueryEscape(p), nil); code == http.StatusOK {
			t.Errorf("text of %q: 200", p)
		}
	}
}

// TestCompleteInScope: the autocomplete does not offer what the scope
// holds (each x: the current paper, a mention, with or without @ or a
// trailing slash), nor anything inside it.
func TestCompleteInScope(t *testing.T) {
	_, ts := testServer(t, sampleVault(t), 0)
	tests := []struct {
		q    string
		x    []string
		want []string
	}{
		{"survey", nil, []string{"papers/2406.09876"}},
		{"survey", []string{"papers/2406.09876"}, nil},
		{"survey", []string{"@papers/2406.09876/"}, nil},
		{"2406", []string{"papers/2406.09876"}, nil},
		{"survey", []string{"papers"}, nil},
		{"notes arch", []string{"notes/archive"}, nil},
		{"notes arch", []string{"notes/arch"}, []string{"notes/archive", "notes/archive/2023-q4.md", "notes/archive/whiteboard.png"}},
	}
	for _, tt := range tests {
		u := ts.URL + "/api/complete?q=" + url.QueryEscape(tt.q)
		for _, x := range tt.x {
			u += "&x=" + url.QueryEscape(x)
		}
		var got []treeEntry
		if code := getJSON(t, ts.Client(), u, &got); code != http.StatusOK {
			t.Fatalf("complete %q: %d", tt.q, code)
		}
		var paths []string
		for _, e := range got {
			paths = append(paths, e.Path)
		}
		if diff := cmp.Diff(tt.want, paths); diff != "" {
			t.Errorf("complete %q without %v (-want +got):\n%s", tt.q, tt.x, diff)
		}
	}
}
