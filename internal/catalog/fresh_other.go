//go:build !linux

package catalog

import (
	"os"
	"path/filepath"
)

// stampsFresh reports whether every stamp matches an Lstat of its path
// now (see stamp).
func stampsFresh(root string, stamps []stamp) bool {
	for _, s := range stamps {
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(s.path)))
		if s.file {
			if err != nil || !st.Mode().IsRegular() {
				return false
			}
			continue
		}
		if err != nil || !st.ModTime().Equal(s.mtime) || st.IsDir() != s.dir || (!s.dir && st.Size() != s.size) {
			return false
		}
	}
	return true
}
