package zotero

import "testing"

// HashTree is treeHash for the package's external tests.
func HashTree(t testing.TB, root string) string { return treeHash(t, root) }

// CloseOCR ends the background OCR of the driver's libraries and waits for
// it, so that a test's cache folder can be removed.
func CloseOCR(d *Driver) {
	d.mu.Lock()
	libs := make([]*Library, 0, len(d.libs))
	for _, l := range d.libs {
		libs = append(libs, l)
	}
	d.mu.Unlock()
	for _, l := range libs {
		l.pdfs.closeOCR()
	}
}
