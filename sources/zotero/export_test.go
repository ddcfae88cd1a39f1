package zotero

import "testing"

// HashTree is treeHash for the package's external tests.
func HashTree(t testing.TB, root string) string { return treeHash(t, root) }
