package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolsList holds the whole of tools/list (names, descriptions, input
// and output schemas, annotations) to testdata/toolslist.json, byte for
// byte as the server sends it, indented: a change to a wire type, a schema
// or a description is a reviewed diff (go test -run TestToolsList -update
// rewrites the file).
func TestToolsList(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, nil), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", "toolslist.json")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestToolsList -update)", err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Errorf("tools/list changed (-recorded +now):\n%s", cmp.Diff(string(want), got.String()))
	}
}
