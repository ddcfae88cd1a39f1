package zotero

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources"
)

// TestBaseFromProfile: with no base directory configured, the one Zotero's
// profile records in prefs.js is used. The fixture's profile names the
// base directory where the library was made; a copy of it naming where the
// fixture lies makes the file linked under the base directory readable,
// and no profile leaves it refused.
func TestBaseFromProfile(t *testing.T) {
	dir := zoterofix.Dev(t)
	got, err := baseFromProfile(filepath.Join(dir, "profile"))
	if err != nil || got != "/home/researcher/Attachments" {
		t.Fatalf("base directory of the fixture's profile: %q, %v", got, err)
	}

	// The profile as it would be on this machine: its absolute paths
	// mapped to where the fixture is.
	prefs, err := os.ReadFile(filepath.Join(dir, "profile", "prefs.js"))
	if err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	mapped := strings.ReplaceAll(string(prefs), `"/home/researcher/Attachments"`, `"`+filepath.Join(dir, "Attachments")+`"`)
	if err := os.WriteFile(filepath.Join(profile, "prefs.js"), []byte(mapped), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d := New(Options{DataDir: filepath.Join(dir, "Zotero"), ProfileDir: profile, CacheDir: testCache})
	jin, err := source(t, d, "").Read(ctx, "zotero:items/6J6EQFFB")
	if err != nil || jin.Pages != 8 {
		t.Fatalf("the file linked under the profile's base directory: %v", err)
	}
	// A base directory the host gives wins over the profile's.
	other := New(Options{DataDir: filepath.Join(dir, "Zotero"), BaseDir: t.TempDir(), ProfileDir: profile, CacheDir: testCache})
	if _, err := source(t, other, "").Read(ctx, "zotero:items/6J6EQFFB"); err == nil {
		t.Error("the profile's base directory replaced the one the host gave")
	}
	// The environment names the profile for the SDK's executables.
	t.Setenv(EnvDir, filepath.Join(dir, "Zotero"))
	t.Setenv(EnvBaseDir, "")
	t.Setenv(EnvProfile, profile)
	if o := (&Driver{}).options(); o.ProfileDir != profile {
		t.Errorf("options from the environment: %+v", o)
	}
}

// TestBadProfile: a profile with no prefs.js, a prefs.js of another form, an
// oversized one or a base directory that is not absolute gives one error
// wrapping ErrProfile that names no path; a prefs.js without the
// preference means no base directory.
func TestBadProfile(t *testing.T) {
	const good = "// Mozilla User Preferences\n\n/* a comment\n   over lines */\nuser_pref(\"extensions.zotero.dataDir\", \"/data/Zotero\");\nuser_pref(\"extensions.zotero.useDataDir\", true);\nuser_pref(\"extensions.zotero.lastViewedFolder\", 12);\n"
	for _, tt := range []struct {
		name, prefs string
		want        string // "" for no error
		base        string
	}{
		{"no preference", good, "", ""},
		{"escaped", good + `user_pref("extensions.zotero.baseAttachmentPath", "/data/My \"Papers\"\\x");` + "\n", "", `/data/My "Papers"\x`},
		{"relative", good + `user_pref("extensions.zotero.baseAttachmentPath", "papers");`, "not an absolute path", ""},
		{"not a string", `user_pref("extensions.zotero.baseAttachmentPath", true);`, "not a string", ""},
		{"NUL", `user_pref("extensions.zotero.baseAttachmentPath", "/a\u0000b");`, "not an absolute path", ""},
		{"no semicolon", `user_pref("extensions.zotero.baseAttachmentPath", "/a")`, "line 1", ""},
		{"three values", `user_pref("extensions.zotero.baseAttachmentPath", "/a", "/b");`, "not a name and a value", ""},
		{"object value", `user_pref("extensions.zotero.baseAttachmentPath", {"a": 1});`, "not a string, boolean or integer", ""},
		{"other statement", good + "pref(\"x\", 1);\n", "line 8", ""},
		{"script", "user_pref(\"a\", 1); user_pref(\"b\", 2);", "not a name and a value", ""},
		{"open comment", "/* never ends\n", "comment that does not end", ""},
		{"huge", "// " + strings.Repeat("x", maxPrefs), "over 4 MiB", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "prefs.js"), []byte(tt.prefs), 0o600); err != nil {
				t.Fatal(err)
			}
			base, err := baseFromProfile(dir)
			switch {
			case tt.want == "" && (err != nil || base != tt.base):
				t.Fatalf("base %q, %v; want %q", base, err, tt.base)
			case tt.want != "" && (!errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want ErrProfile saying %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), dir):
				t.Fatalf("the error names a path: %v", err)
			}
		})
	}
	// No prefs.js: the library cannot be opened, and says why once.
	dir := zoterofix.Dev(t)
	d := New(Options{DataDir: filepath.Join(dir, "Zotero"), ProfileDir: t.TempDir(), CacheDir: testCache})
	_, err := d.Ref(context.Background(), "", &sources.Env{})
	if !errors.Is(err, ErrProfile) || strings.Contains(err.Error(), "/") {
		t.Fatalf("a profile without prefs.js: %v", err)
	}
}
