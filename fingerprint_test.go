package researchctx

import (
	"context"
	"testing"
)

func TestFingerprintGolden(t *testing.T) {
	// Pinned: a change here changes every host's fingerprints and forces new
	// agent sessions everywhere. Change it only with the encoding version.
	// The value is the sha256sum of the encoding documented on Fingerprint,
	// written out by hand (DefaultBudget: 8, 500, 8000, 60000, 200, 10000).
	got := Fingerprint(Tools, []Source{
		{Kind: KindPaper, Path: "papers/1706.03762", Title: "Attention"},
		{Kind: KindDirectory, Path: "notes"},
	}, DefaultBudget, ModeMCP)
	const want = "sha256:3d8c51d55c55d646066b6aace19380b7f304d29c025085546a24030e1e83224b"
	if got != want {
		t.Fatalf("Fingerprint = %s, want %s", got, want)
	}
}

func TestFingerprintScope(t *testing.T) {
	dir := testVault(t)
	base := req(dir)
	base.CurrentPaper = "papers/1706.03762"
	base.Mentions = []string{"notes", "reading-list"}
	base.Selections = []Selection{{Text: "a quote", Page: 2}}
	fp := func(mod func(*Request)) string {
		r := base
		r.Mentions = append([]string(nil), base.Mentions...)
		r.Selections = append([]Selection(nil), base.Selections...)
		mod(&r)
		p, err := Resolve(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if p.Fingerprint != Fingerprint(p.Tools, p.Sources, p.Budget, p.Mode) {
			t.Fatal("plan fingerprint does not match its scope")
		}
		return p.Fingerprint
	}
	ref := fp(func(*Request) {})
	same := map[string]func(*Request){
		"quote changed":           func(r *Request) { r.Selections[0].Text = "another quote entirely" },
		"turn id changed":         func(r *Request) { r.TurnID = "turn-2" },
		"mention order changed":   func(r *Request) { r.Mentions = []string{"reading-list", "notes"} },
		"page of selection moved": func(r *Request) { r.Selections[0].Page = 7 },
	}
	for name, mod := range same {
		if got := fp(mod); got != ref {
			t.Errorf("%s: fingerprint changed", name)
		}
	}
	four := 4
	differ := map[string]func(*Request){
		"source added":   func(r *Request) { r.Mentions = append(r.Mentions, "notes/ideas.md") },
		"source removed": func(r *Request) { r.Mentions = r.Mentions[:1] },
		"budget changed": func(r *Request) { r.Budget = &BudgetOverrides{SearchCards: &four} },
		"mode changed":   func(r *Request) { r.Remote = true },
	}
	for name, mod := range differ {
		if got := fp(mod); got == ref {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
	if a, b := Fingerprint([]string{ToolSearch, ToolRead}, nil, DefaultBudget, ModeMCP), Fingerprint([]string{ToolRead, ToolSearch}, nil, DefaultBudget, ModeMCP); a != b {
		t.Error("tool order changes the fingerprint")
	}
	if a, b := Fingerprint(Tools, []Source{{Kind: KindFile, Path: "a"}}, DefaultBudget, ModeMCP), Fingerprint(Tools, []Source{{Kind: KindDirectory, Path: "a"}}, DefaultBudget, ModeMCP); a == b {
		t.Error("source kind is not in the fingerprint")
	}
}
