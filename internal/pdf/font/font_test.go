package font

import "testing"

func TestCoreLigatureWidth(t *testing.T) {
	for _, tc := range []struct {
		font, text string
		want       float64
	}{
		{"Times-Roman", "fi", 0.556},
		{"Times-Italic", "\ufb02", 0.5},
		{"Helvetica-Bold", "fl", 0.611},
	} {
		// 0xAE is the code TeX's fonts give fi; in WinAnsi it is ®.
		if got := coreWidth(tc.font, tc.text, 0xAE); got != tc.want {
			t.Errorf("coreWidth(%s, %q) = %v, want %v", tc.font, tc.text, got, tc.want)
		}
	}
	if got := coreWidth("Times-Roman", "a", 'a'); got != 0.444 {
		t.Errorf("coreWidth(Times-Roman, a) = %v, want 0.444", got)
	}
}
