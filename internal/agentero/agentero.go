// Package agentero names the SDK's private folder of a Vault, .agentero,
// and the folders in it: the one place the names are written (they are
// contract, docs/contract.md).
package agentero

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// The folders, relative to the Vault root and slash-separated.
const (
	// Dir is the SDK's private folder: never a source, never listed.
	Dir = ".agentero"
	// Cache is the Vault's own cache folder: the catalogue, the indexes,
	// extracted PDF text and parsed references.
	Cache = Dir + "/cache"
	// Sessions holds one folder per running conversation, named by its
	// runtime id, with the grant and the usage log of its turns.
	Sessions = Dir + "/context-sessions"
)

// VaultCache returns the cache folder of the Vault at the absolute root
// under cacheRoot, an absolute folder a host chose for the caches of every
// Vault it opens (for a Vault that is read-only, or whose caches should
// live elsewhere): a subfolder named after the Vault's folder and a hash
// of its path, so two Vaults never share one. The host's resolver and the
// server it starts must agree on it, so both call VaultCache with the same
// cacheRoot. An empty cacheRoot is returned as is (each Vault keeps its
// caches in its own Cache folder), and so is "-" (no on-disk cache).
func VaultCache(cacheRoot, root string) string {
	if cacheRoot == "" || cacheRoot == "-" {
		return cacheRoot
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
	return filepath.Join(cacheRoot, name+"-"+hex.EncodeToString(sum[:8]))
}
