package vault

import (
	"crypto/sha256"
	"encoding/hex"
)

// unitsVersion changes whenever what goes into the search units changes,
// so that a library index built the old way is rebuilt rather than misread.
const unitsVersion = "units-6"

// stampOf hashes what a source's index depends on.
func stampOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
