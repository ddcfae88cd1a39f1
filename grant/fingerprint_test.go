package grant

import (
	"encoding/json"
	"testing"
)

func TestFingerprintGolden(t *testing.T) {
	// Pinned: a change here changes every host's fingerprints and forces new
	// agent sessions everywhere. Change it only with the encoding version.
	// The value is the sha256sum of the encoding documented on Fingerprint,
	// written out by hand (DefaultBudget: 8, 500, 8000, 60000, 200, 10000).
	got := Scope{Tools: Tools(), Sources: []Ref{
		{Kind: KindPaper, Path: "papers/1706.03762", Title: "Attention"},
		{Kind: KindDirectory, Path: "notes"},
	}, Budget: DefaultBudget(), Mode: ModeMCP}.Fingerprint()
	const want = "sha256:3d8c51d55c55d646066b6aace19380b7f304d29c025085546a24030e1e83224b"
	if got != want {
		t.Fatalf("Fingerprint = %s, want %s", got, want)
	}
}

func TestFingerprintConfig(t *testing.T) {
	fp := func(config string) string {
		var raw json.RawMessage
		if config != "" {
			raw = json.RawMessage(config)
		}
		return Scope{Tools: Tools(), Sources: []Ref{{Kind: "bibtex", Path: "refs.bib", Config: raw}}, Budget: DefaultBudget(), Mode: ModeMCP}.Fingerprint()
	}
	// Pinned like the golden value above: the sha256sum of
	// researchctx-scope/1, mode, the three tools, the line
	//	source "bibtex" "refs.bib" "{\"file\":\"refs.bib\",\"n\":1.50}"
	// and the default budget, written out by hand.
	const want = "sha256:194133990c247de6f80b416fb7550c52676a9405de41a020c429236b5a739f5f"
	base := fp(`{"file":"refs.bib","n":1.50}`)
	if base != want {
		t.Fatalf("Fingerprint = %s, want %s", base, want)
	}
	tests := []struct {
		name   string
		config string
		same   bool
	}{
		{"key order and space", `{ "n": 1.50, "file": "refs.bib" }`, true},
		{"another value", `{"file":"other.bib","n":1.50}`, false},
		{"number as written", `{"file":"refs.bib","n":1.5}`, false},
		{"no config", ``, false},
	}
	for _, tt := range tests {
		if got := fp(tt.config) == base; got != tt.same {
			t.Errorf("%s: same fingerprint = %v, want %v", tt.name, got, tt.same)
		}
	}
	// A source without a config fingerprints as before configs existed.
	plain := Scope{Tools: Tools(), Sources: []Ref{{Kind: KindDirectory, Path: "notes"}}, Budget: DefaultBudget(), Mode: ModeMCP}
	empty := plain
	empty.Sources = []Ref{{Kind: KindDirectory, Path: "notes", Config: json.RawMessage{}}}
	if plain.Fingerprint() != empty.Fingerprint() {
		t.Error("an empty config changes the fingerprint")
	}
}
