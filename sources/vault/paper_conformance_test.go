package vault_test

import (
	"context"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// paperSampleLibrary opens a Library over a fresh copy of the sample vault.
func paperSampleLibrary(t *testing.T) *vault.Library {
	t.Helper()
	dir := t.TempDir()
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	v, err := catalog.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: t.TempDir()})
	t.Cleanup(func() { lib.Close() })
	return lib
}

func TestPaperConformance(t *testing.T) {
	l := paperSampleLibrary(t)
	tests := []struct{ ref, probe string }{
		{"papers/2401.01234", "strided global tokens"},
		{"papers/2406.09876", "evaluation practice"},
		{"papers/local-window-eval", "local window width"},
		{"papers/vision/patch-tokens", "gigapixel"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			src, err := l.Open(context.Background(), grant.KindPaper, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if err := sourcetest.Test(context.Background(), src, tt.probe); err != nil {
				t.Error(err)
			}
		})
	}
}
