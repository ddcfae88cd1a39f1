package font

import "testing"

func TestGlyphText(t *testing.T) {
	for name, want := range map[string]string{
		"A": "A", "fi": "fi", "f_f_i": "ffi", "uni00E9": "é", "uni00660069": "fi", "u1D400": "𝐀",
		"a.sc": "a", "eacute": "é", "nosuchglyph": "", ".notdef": "",
	} {
		if got := glyphText(name); got != want {
			t.Errorf("glyphText(%q) = %q, want %q", name, got, want)
		}
	}
}
