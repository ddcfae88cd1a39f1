package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// NFC and NFD spellings: each name on disk is reached by exactly its own
// bytes, and neither spelling ever reaches a different file.
func TestUnicodeNormalisation(t *testing.T) {
	const (
		nfc = "caf\u00e9"  // é as one code point
		nfd = "cafe\u0301" // e + combining acute, as macOS tools write it
	)
	x := newFixture(t)
	vaultfix.Write(t, x.vault, map[string]string{"papers/" + nfd + "/n.md": "NFD"})

	got, err := x.fs.ReadText("papers/"+nfd+"/n.md", 0)
	if err != nil || got != "NFD" {
		t.Fatalf("NFD path: %q, %v", got, err)
	}
	// The other spelling: missing on a byte-exact file system (Linux), the
	// same file on a normalisation-insensitive one (APFS). Never another.
	got, err = x.fs.ReadText("papers/"+nfc+"/n.md", 0)
	switch {
	case err == nil && got != "NFD":
		t.Fatalf("NFC path reached %q", got)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		t.Fatalf("NFC path: %v", err)
	}
	checkRedacted(t, err, x.dir)

	// Where both can exist side by side, each keeps its own content,
	// through the Vault and through a Sub view.
	p := filepath.Join(x.vault, "papers", nfc)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Skipf("file system folds NFC and NFD: %v", err)
	}
	vaultfix.Write(t, x.vault, map[string]string{"papers/" + nfc + "/n.md": "NFC"})
	for _, name := range []string{nfc, nfd} {
		want := map[string]string{nfc: "NFC", nfd: "NFD"}[name]
		got, err := x.fs.ReadText("papers/"+name+"/n.md", 0)
		if err != nil || got != want {
			t.Errorf("ReadText(%+q) = %q, %v; want %q", name, got, err, want)
		}
		s := x.sub(t, "papers/"+name)
		if s.Name() != "papers/"+name {
			t.Errorf("Sub(%+q).Name() = %+q", name, s.Name())
		}
		got, err = s.ReadText("n.md", 0)
		if err != nil || got != want {
			t.Errorf("Sub(%+q).ReadText(n.md) = %q, %v; want %q", name, got, err, want)
		}
	}
}

// Look-alikes of '.', '/' and '%'-escapes are ordinary names.
func TestLookAlikeNamesAreLiteral(t *testing.T) {
	x := newFixture(t)
	vaultfix.Write(t, x.vault, map[string]string{
		"papers/x/100%.md":           "percent",
		"papers/x/%2e%2e/secret.txt": "decoy",
		"papers/x/\u2025/b.md":       "two dot leader",
	})
	s := x.sub(t, "papers/x")
	tests := []struct {
		rel  string
		want string
		err  error
	}{
		{"100%.md", "percent", nil},
		{"%2e%2e/secret.txt", "decoy", nil}, // a folder really named %2e%2e
		{"%2e%2e%2fsecret.txt", "", fs.ErrNotExist},
		{"\u2025/b.md", "two dot leader", nil},
		{"\u2025/\u2025/outside/secret.txt", "", fs.ErrNotExist},
		{"\uff0e\uff0e\uff0foutside", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := s.ReadText(tt.rel, 0)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("ReadText(%q) = %q, %v; want %v", tt.rel, got, err, tt.err)
			}
			checkRedacted(t, err, x.dir)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ReadText(%q) = %q, %v; want %q", tt.rel, got, err, tt.want)
		}
	}
}

// The hard-link policy (docs/security.md): a hard link is the file itself to
// the kernel, so a link inside the view is read like any other file even
// when another name of it lies outside. The type and cap checks still apply.
func TestHardLinkPolicy(t *testing.T) {
	x := newFixture(t)
	if err := os.Link(filepath.Join(x.dir, "outside/secret.txt"), filepath.Join(x.vault, "papers/x/hard.md")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Link(filepath.Join(x.vault, "papers/x-private/secret.md"), filepath.Join(x.vault, "papers/x/hard-sibling.md")); err != nil {
		t.Fatal(err)
	}
	s := x.sub(t, "papers/x")
	for rel, want := range map[string]string{"hard.md": outsideSecret, "hard-sibling.md": siblingSecret} {
		got, err := s.ReadText(rel, 0)
		if err != nil || got != want {
			t.Errorf("ReadText(%q) = %q, %v; want the linked content (allowed by policy)", rel, got, err)
		}
		if _, err := s.ReadFile(rel, 4); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadFile(%q, 4) error = %v, want ErrTooLarge", rel, err)
		}
	}
}
