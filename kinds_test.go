package researchctx

import (
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
)

// TestCatalogKindsAreGrantKinds: the catalogue, which imports no public
// package, classifies a path with the very values of the grant's kinds.
func TestCatalogKindsAreGrantKinds(t *testing.T) {
	for _, tt := range []struct {
		got  catalog.Kind
		want grant.Kind
	}{
		{catalog.KindPaper, grant.KindPaper},
		{catalog.KindDirectory, grant.KindDirectory},
		{catalog.KindFile, grant.KindFile},
	} {
		if grant.Kind(tt.got) != tt.want || !tt.want.Valid() {
			t.Errorf("catalog kind %q, want grant's %q", tt.got, tt.want)
		}
	}
}
