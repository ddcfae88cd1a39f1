package safefs

import (
	"io/fs"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// BenchmarkReadFile measures a small capped read: Clean, the per-element
// resolve, the os.Root open, the fstat checks and the read.
func BenchmarkReadFile(b *testing.B) {
	x := newFixture(b)
	vaultfix.Write(b, x.vault, map[string]string{"papers/vision/resnet/NOTES.md": publicText})
	for b.Loop() {
		if _, err := x.fs.ReadFile("papers/vision/resnet/NOTES.md", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFileSub is the same read through a Sub view of the paper.
func BenchmarkReadFileSub(b *testing.B) {
	x := newFixture(b)
	vaultfix.Write(b, x.vault, map[string]string{"papers/vision/resnet/NOTES.md": publicText})
	s := x.sub(b, "papers/vision/resnet")
	for b.Loop() {
		if _, err := s.ReadFile("NOTES.md", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefusedLink measures refusing a link that leaves the Vault.
func BenchmarkRefusedLink(b *testing.B) {
	x := newFixture(b)
	for b.Loop() {
		if _, err := x.fs.ReadFile("papers/x/link-out.md", 0); err == nil {
			b.Fatal("read succeeded")
		}
	}
}

// BenchmarkWalk walks 200 files in 20 folders.
func BenchmarkWalk(b *testing.B) {
	x := newFixture(b)
	files := map[string]string{}
	for i := range 20 {
		for j := range 10 {
			files["lib/"+string(rune('a'+i))+"/"+string(rune('a'+j))+".md"] = "x"
		}
	}
	vaultfix.Write(b, x.vault, files)
	for b.Loop() {
		n := 0
		if _, err := x.fs.Walk("lib", 0, 0, func(string, fs.DirEntry) error { n++; return nil }); err != nil || n != 220 {
			b.Fatal(n, err)
		}
	}
}
