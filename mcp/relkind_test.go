package mcp

import (
	"strings"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// TestRelationsShowOnlyTheKindAsked: paper_relations with a kind shows that
// list only: the lists not asked for are not shown as "none known".
func TestRelationsShowOnlyTheKindAsked(t *testing.T) {
	vault := vaultfix.Sample(t)
	cs := serveGrant(t, writeGrant(t, demoRequest(vault)))
	tests := []struct {
		kind      tools.RelationKind
		shown     []string
		notShown  []string
		structure tools.RelationKind
	}{
		{tools.RelCitedBy, []string{"Cited by ("}, []string{"References (", "Related in the library ("}, tools.RelCitedBy},
		{tools.RelReferences, []string{"References ("}, []string{"Cited by (", "Related in the library ("}, tools.RelReferences},
		{tools.RelRelated, []string{"Related in the library ("}, []string{"References (", "Cited by ("}, tools.RelRelated},
		{"", []string{"References (", "Cited by (", "Related in the library ("}, nil, tools.RelAll},
	}
	for _, tt := range tests {
		t.Run(string(tt.structure), func(t *testing.T) {
			args := map[string]any{"paper": "papers/2401.01234"}
			if tt.kind != "" {
				args["kind"] = tt.kind
			}
			res := call(t, cs, grant.ToolRelations, args)
			mustOK(t, res)
			txt := text(res)
			for _, s := range tt.shown {
				if !strings.Contains(txt, s) {
					t.Errorf("text lacks %q:\n%s", s, txt)
				}
			}
			for _, s := range tt.notShown {
				if strings.Contains(txt, s) {
					t.Errorf("text shows %q, a list not asked for:\n%s", s, txt)
				}
			}
			var out tools.RelationsOutput
			decode(t, res, &out)
			if out.Kind != tt.structure {
				t.Errorf("kind %q, want %q", out.Kind, tt.structure)
			}
		})
	}
}
