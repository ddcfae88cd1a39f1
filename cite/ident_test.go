package cite

import "testing"

func TestIdentifiers(t *testing.T) {
	tests := []struct {
		doi, arxiv         string
		wantDOI, wantArXiv string
	}{
		{" https://doi.org/10.1109/CVPR.2016.90 ", "", "10.1109/cvpr.2016.90", ""},
		{"doi:10.1000/ABC", "", "10.1000/abc", ""},
		{"", "1706.03762v5", "", "1706.03762"},
		{"", "arXiv:2401.01234V2", "", "2401.01234"},
		{"10.48550/arXiv.2401.01234", "", "", "2401.01234"},
		{"10.48550/ARXIV.2401.01234", "2401.01234v3", "", "2401.01234"},
		{"not a doi", "", "", ""},
		{"", "https://arxiv.org/abs/cs/0112017v1", "", "cs/0112017"},
	}
	for _, tt := range tests {
		d, a := Identifiers(tt.doi, tt.arxiv)
		if d != tt.wantDOI || a != tt.wantArXiv {
			t.Errorf("Identifiers(%q, %q) = %q, %q; want %q, %q", tt.doi, tt.arxiv, d, a, tt.wantDOI, tt.wantArXiv)
		}
	}
}
