//go:build !linux

package safefs

import "os"

// listDir lists the names in the open folder h and their types.
func listDir(h *os.File) ([]dirName, error) {
	des, err := h.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]dirName, len(des))
	for i, de := range des {
		out[i] = dirName{name: de.Name(), typ: de.Type(), known: true}
	}
	return out, nil
}
