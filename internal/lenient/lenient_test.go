package lenient

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValues(t *testing.T) {
	for _, tt := range []struct {
		raw       string
		str, text string
		num       int
	}{
		{`" A title "`, "A title", "A title", 0},
		{`2019`, "2019", "", 2019},
		{`"2024-03-11"`, "2024-03-11", "2024-03-11", 2024},
		{`10.1000`, "10.1000", "", 10},
		{`{"x":1}`, "", "", 0},
		{`null`, "", "", 0},
		{``, "", "", 0},
		{`[1]`, "", "", 0},
	} {
		r := json.RawMessage(tt.raw)
		if got := String(r); got != tt.str {
			t.Errorf("String(%s) = %q, want %q", tt.raw, got, tt.str)
		}
		if got := Text(r); got != tt.text {
			t.Errorf("Text(%s) = %q, want %q", tt.raw, got, tt.text)
		}
		if got := Int(r); got != tt.num {
			t.Errorf("Int(%s) = %d, want %d", tt.raw, got, tt.num)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want []string
	}{
		{`"Ada Lovelace"`, []string{"Ada Lovelace"}},
		{`[{"name":"A"},"B",{"given":"C","family":"D"},{"x":1},7,null]`, []string{"A", "B", "C D"}},
		{`{"name":"A"}`, nil},
		{`42`, nil},
	} {
		if diff := cmp.Diff(tt.want, Names(json.RawMessage(tt.raw))); diff != "" {
			t.Errorf("Names(%s) (-want +got):\n%s", tt.raw, diff)
		}
	}
}
