package font

import "testing"

func TestCMap(t *testing.T) {
	cm := parseCMap([]byte(`1 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange
2 beginbfchar <41> <0041> <8140> <D835DC00> endbfchar
2 beginbfrange <61> <62> <0061> <9000> <9FFF> <4E00> endbfrange
1 beginbfrange <42> <43> [<0066 0069> <FB01>] endbfrange`))
	tests := []struct {
		code uint32
		want string
	}{
		{0x41, "A"}, {0x62, "b"}, {0x8140, "𝐀"}, {0x9001, "丁"}, {0x42, "fi"}, {0x43, "fi"},
	}
	for _, tt := range tests {
		if got, _ := cm.lookupText(tt.code); got != tt.want {
			t.Errorf("code %#x: got %q, want %q", tt.code, got, tt.want)
		}
	}
	if n := cm.codeLen([]byte{0x41, 0x81}); n != 1 {
		t.Errorf("codeLen(41) = %d", n)
	}
	if n := cm.codeLen([]byte{0x81, 0x40}); n != 2 {
		t.Errorf("codeLen(8140) = %d", n)
	}
	// Codespace ranges bound each byte: 8220 is between 8140 and FFFF as a
	// number but its second byte is below 40.
	if n := cm.codeLen([]byte{0x82, 0x20}); n != 1 {
		t.Errorf("codeLen(8220) = %d, want 1", n)
	}
}

// FuzzCMap checks that the CMap parser ends on any input without
// panicking, and that what it builds answers lookups.
func FuzzCMap(f *testing.F) {
	for _, s := range []string{
		"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <00> <FF> [<0041>] endbfrange",
		"1 begincodespacerange <0000> <FFFF> endcodespacerange 1 begincidrange <0000> <FFFF> 1 endcidrange",
		"2 beginbfchar <41> <0041> <8140> <D835DC00> endbfchar",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cm := parseCMap(data)
		cm.codeLen(data)
		cm.lookupText(codeValue(data[:min(len(data), 4)]))
		cm.lookupCID(codeValue(data[:min(len(data), 4)]))
	})
}
