package tools_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/tools"
)

// TestContractListsReadModes: docs/contract.md's context_read input lists
// exactly the modes Read takes, in their order, the default first.
func TestContractListsReadModes(t *testing.T) {
	data, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, input, ok := strings.Cut(doc, "### `context_read` input")
	if !ok {
		t.Fatal("docs/contract.md has no context_read input section")
	}
	const row = "| `mode` | string | "
	i := strings.Index(input, row)
	if i < 0 {
		t.Fatal("docs/contract.md's context_read input has no mode row")
	}
	line, _, _ := strings.Cut(input[i+len(row):], "\n")
	var got []tools.ReadMode
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(line, -1) {
		got = append(got, tools.ReadMode(m[1]))
	}
	if diff := cmp.Diff(tools.ReadModes(), got); diff != "" {
		t.Errorf("docs/contract.md lists other modes than Read takes (-Read +contract):\n%s", diff)
	}
	if def := tools.ReadModes()[0]; !strings.Contains(line, "`"+string(def)+"` (default)") {
		t.Errorf("docs/contract.md does not name %s the default: %s", def, line)
	}
}

// TestReadRefusesUnknownMode: a mode Read does not take is an invalid
// argument whose message lists every mode it takes.
func TestReadRefusesUnknownMode(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "papers/2401.01234", Mode: "outline"})
	if !errors.Is(err, tools.ErrInvalidArgument) {
		t.Fatalf("read in mode outline: %v, want ErrInvalidArgument", err)
	}
	var names []string
	for _, m := range tools.ReadModes() {
		names = append(names, string(m))
	}
	if want := `mode "outline" is not one of ` + strings.Join(names, ", "); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
