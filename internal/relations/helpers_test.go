package relations

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// openVault writes files into a new folder and opens it as a Vault.
func openVault(tb testing.TB, files map[string]string) (*catalog.Vault, string) {
	tb.Helper()
	dir := tb.TempDir()
	vaultfix.Write(tb, dir, files)
	v, err := catalog.Open(dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v, dir
}

// js encodes v as JSON for fixtures.
func js(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// obj is a JSON object literal for fixtures.
type obj = map[string]any

// sidecarDoc wraps citations into a schemaVersion 1 sidecar.
func sidecarDoc(tb testing.TB, citations ...any) string {
	return js(tb, obj{
		"schemaVersion": 1,
		"source":        obj{"mode": "pdf-text", "generatedAt": "2024-01-01T00:00:00Z", "fingerprint": "sha256:00"},
		"citations":     citations,
	})
}

// scanDoc wraps seeds into a schemaVersion 1 cited-by cache.
func scanDoc(tb testing.TB, seeds obj) string {
	return js(tb, obj{"schemaVersion": 1, "generatedAt": "2024-11-02T10:00:00Z", "seeds": seeds})
}

// seed is one seed of the cache.
func seed(citing ...any) obj {
	return obj{"s2Id": "seed", "citationCount": len(citing), "fetchedAt": "2024-11-02T09:00:00Z", "citing": citing}
}

// mustRelations returns the relations of ref or fails the test.
func mustRelations(tb testing.TB, l *Graph, ref string) *Relations {
	tb.Helper()
	r, err := l.Relations(context.Background(), ref)
	if err != nil {
		tb.Fatalf("Relations(%q): %v", ref, err)
	}
	return r
}
