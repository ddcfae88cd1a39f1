package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchVault writes n paper units (metadata.json and an empty PDF each),
// 100 per organisation folder.
func benchVault(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		p := filepath.Join(dir, "papers", fmt.Sprintf("group-%03d", i/100), fmt.Sprintf("p%05d", i))
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		meta := fmt.Sprintf(`{"title":"Paper %d","doi":"10.5555/bench.%d","arxiv_id":"2401.%05d"}`, i, i, i)
		if err := os.WriteFile(filepath.Join(p, "metadata.json"), []byte(meta), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "paper.pdf"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkCatalogue measures a 10,000-paper Vault: the first build (one
// walk), a new process's start from the on-disk catalogue, a call within the
// revalidation interval (no I/O), and a revalidation (an Lstat per folder
// and metadata file, no walk).
func BenchmarkCatalogue(b *testing.B) {
	dir := benchVault(b, 10000)
	ctx := context.Background()
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			v, _ := Open(dir, &Options{CacheDir: "-"})
			if _, err := v.Catalogue(ctx); err != nil {
				b.Fatal(err)
			}
			v.Close()
		}
	})
	b.Run("start-from-cache", func(b *testing.B) {
		cache := b.TempDir()
		v, _ := Open(dir, &Options{CacheDir: cache})
		v.Catalogue(ctx)
		v.Close()
		for b.Loop() {
			v, _ := Open(dir, &Options{CacheDir: cache, Revalidate: time.Hour})
			c, err := v.Catalogue(ctx)
			if err != nil || len(c.Papers()) != 10000 {
				b.Fatal(err)
			}
			v.Close()
		}
	})
	b.Run("cached", func(b *testing.B) {
		v, _ := Open(dir, &Options{Revalidate: time.Hour})
		defer v.Close()
		first, _ := v.Catalogue(ctx)
		for b.Loop() {
			if c, _ := v.Catalogue(ctx); c != first {
				b.Fatal("rebuilt")
			}
		}
	})
	b.Run("revalidate", func(b *testing.B) {
		v, _ := Open(dir, &Options{Revalidate: time.Nanosecond})
		defer v.Close()
		first, _ := v.Catalogue(ctx)
		for b.Loop() {
			if c, _ := v.Catalogue(ctx); c != first {
				b.Fatal("rebuilt without a change")
			}
		}
	})
}
