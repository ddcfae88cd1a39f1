package demo

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/researchctx/researchctx/sources/zotero"
)

// UseZotero configures the Zotero library of a demo's -zotero and
// -zotero-base flags, for this process (zotero.Configure) and for the
// agentero-context server it starts, which reads the environment. The
// profile folder, when RESEARCHCTX_ZOTERO_PROFILE names one, is kept for
// a base directory the flags do not give. It returns the data directory,
// absolute.
func UseZotero(dir, base string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Join(abs, "zotero.sqlite")); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("-zotero %q: no zotero.sqlite there", dir)
	}
	if base != "" {
		if base, err = filepath.Abs(base); err != nil {
			return "", err
		}
	}
	os.Setenv(zotero.EnvDir, abs)
	os.Setenv(zotero.EnvBaseDir, base)
	zotero.Configure(zotero.Options{DataDir: abs, BaseDir: base, ProfileDir: os.Getenv(zotero.EnvProfile)})
	return abs, nil
}
