package ocr

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsLangName checks isLangName against the regular expression it
// replaced, on names at and past its bounds and with every byte that
// borders its classes.
func TestIsLangName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
	names := []string{"", "eng", "chi_sim", "jpn_vert", "osd", strings.Repeat("a", 64), strings.Repeat("a", 65),
		"en-g", "eng\n", "\neng", "eng ", "énG", "a/b", "..", "Z9_"}
	for c := range 256 {
		names = append(names, "a"+string(rune(c)), string([]byte{byte(c)}))
	}
	for _, n := range names {
		if got, want := isLangName(n), re.MatchString(n); got != want {
			t.Errorf("isLangName(%q) = %v, want %v", n, got, want)
		}
	}
}
