package researchctx

import (
	"context"
	"testing"

	"github.com/researchctx/researchctx/grant"
)

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
		if p.Fingerprint != p.Scope.Fingerprint() {
			t.Fatal("plan fingerprint does not match its scope")
		}
		return p.Fingerprint
	}
	ref := fp(func(*Request) {})
	same := map[string]func(*Request){
		"quote changed":              func(r *Request) { r.Selections[0].Text = "another quote entirely" },
		"turn id changed":            func(r *Request) { r.TurnID = "turn-2" },
		"mention order changed":      func(r *Request) { r.Mentions = []string{"reading-list", "notes"} },
		"page of selection moved":    func(r *Request) { r.Selections[0].Page = 7 },
		"a file of a granted folder": func(r *Request) { r.Mentions = append(r.Mentions, "notes/ideas.md") },
	}
	for name, mod := range same {
		if got := fp(mod); got != ref {
			t.Errorf("%s: fingerprint changed", name)
		}
	}
	four := 4
	differ := map[string]func(*Request){
		"source added":   func(r *Request) { r.Mentions = append(r.Mentions, "papers/bare") },
		"source removed": func(r *Request) { r.Mentions = r.Mentions[:1] },
		"budget changed": func(r *Request) { r.Budget = &grant.BudgetOverrides{SearchCards: &four} },
		"mode changed":   func(r *Request) { r.Remote = true },
	}
	for name, mod := range differ {
		if got := fp(mod); got == ref {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
	if a, b := (grant.Scope{Tools: []string{grant.ToolSearch, grant.ToolRead}, Sources: nil, Budget: grant.DefaultBudget(), Mode: grant.ModeMCP}).Fingerprint(), (grant.Scope{Tools: []string{grant.ToolRead, grant.ToolSearch}, Sources: nil, Budget: grant.DefaultBudget(), Mode: grant.ModeMCP}).Fingerprint(); a != b {
		t.Error("tool order changes the fingerprint")
	}
	if a, b := (grant.Scope{Tools: grant.Tools(), Sources: []grant.Ref{{Kind: grant.KindFile, Path: "a"}}, Budget: grant.DefaultBudget(), Mode: grant.ModeMCP}).Fingerprint(), (grant.Scope{Tools: grant.Tools(), Sources: []grant.Ref{{Kind: grant.KindDirectory, Path: "a"}}, Budget: grant.DefaultBudget(), Mode: grant.ModeMCP}).Fingerprint(); a == b {
		t.Error("source kind is not in the fingerprint")
	}
}
