package grant

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// CacheDir returns the cache folder of the Vault at the absolute root under
// dir, an absolute folder a host chose for the caches of every Vault it
// opens (for a Vault that is read-only, or whose caches should live
// elsewhere): a subfolder named after the Vault's folder and a hash of its
// path, so two Vaults never share one. The host's resolver and the server
// it starts must agree on it, so both call CacheDir with the same dir. An
// empty dir is returned as is (each Vault keeps its caches in its own
// .agentero/cache), and so is "-" (no on-disk cache).
func CacheDir(dir, root string) string {
	if dir == "" || dir == "-" {
		return dir
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	name := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, filepath.Base(root))
	if len(name) > 40 {
		name = name[:40]
	}
	return filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:8]))
}
