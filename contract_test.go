package researchctx_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// contractDoc is docs/contract.md split into what the test checks: its
// tagged JSON examples and its field tables, each under the heading it
// stands below.
type contractDoc struct {
	examples map[string][]string // info-string tag → code blocks
	tables   map[string][]string // "heading#n" → first-column field names
}

var (
	headingRe  = regexp.MustCompile("^#{2,3} (.+)$")
	fieldRowRe = regexp.MustCompile("^\\s*\\| `([A-Za-z]+)` \\|")
)

func readContract(t *testing.T) contractDoc {
	t.Helper()
	data, err := os.ReadFile("docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := contractDoc{examples: map[string][]string{}, tables: map[string][]string{}}
	var heading, fence string
	var block strings.Builder
	tableN, inTable := 0, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if trimmed == "```" {
				doc.examples[fence] = append(doc.examples[fence], block.String())
				fence = ""
				block.Reset()
				continue
			}
			block.WriteString(line + "\n")
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			fence = "-"
			if len(info) == 2 {
				fence = info[1]
			}
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			heading, tableN, inTable = m[1], 0, false
			continue
		}
		if !strings.HasPrefix(trimmed, "|") {
			inTable = false
			continue
		}
		if !inTable {
			inTable = true
			tableN++
		}
		if m := fieldRowRe.FindStringSubmatch(line); m != nil {
			key := heading + "#" + string(rune('0'+tableN))
			doc.tables[key] = append(doc.tables[key], m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return doc
}

// jsonFields lists the JSON names of a struct's fields, embedded structs'
// fields included, as encoding/json sees them.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// TestContractFields checks that every field table of docs/contract.md
// lists exactly the JSON fields of its type: none missing, none that the
// code does not have.
func TestContractFields(t *testing.T) {
	doc := readContract(t)
	tables := []struct {
		key  string
		typ  any
		skip []string // fields the type has that the table documents elsewhere
	}{
		{"3. Request#1", researchctx.Request{}, nil},
		{"4. Plan#1", researchctx.Plan{}, nil},
		{"4. Plan#2", grant.Budget{}, nil},
		{"5. Grant#1", grant.Grant{}, nil},
		{"6. usage.jsonl#1", usage.Line{}, nil},
		{"`context_search` input#1", tools.SearchInput{}, nil},
		{"`context_search` output#1", tools.SearchOutput{}, nil},
		{"card#1", tools.Card{}, nil},
		{"`context_read` input#1", tools.ReadInput{}, nil},
		{"`context_read` output#1", tools.ReadOutput{}, nil},
		{"mark#1", tools.MarkInfo{}, nil},
		{"`paper_relations` input#1", tools.RelationsInput{}, nil},
		{"`paper_relations` output#1", tools.RelationsOutput{}, nil},
		{"relation card#1", tools.RelationCard{}, nil},
		{"relation context#1", tools.RelationContext{}, nil},
	}
	for _, tc := range tables {
		t.Run(tc.key, func(t *testing.T) {
			got, ok := doc.tables[tc.key]
			if !ok {
				t.Fatalf("docs/contract.md has no field table %q (tables: %v)", tc.key, keys(doc.tables))
			}
			want := jsonFields(reflect.TypeOf(tc.typ))
			sort.Strings(got)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the table's fields differ from %T's JSON fields (-code +doc):\n%s", tc.typ, diff)
			}
		})
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// strictDecode decodes one JSON value into v, refusing unknown fields and
// anything after the value.
func strictDecode(data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return nil
}

// TestContractExamples decodes every JSON example of docs/contract.md into
// the type it shows, unknown fields refused, and checks the examples'
// fingerprints against their scopes.
func TestContractExamples(t *testing.T) {
	doc := readContract(t)
	for _, tag := range []string{"request", "plan", "grant", "usage"} {
		if len(doc.examples[tag]) == 0 {
			t.Errorf("docs/contract.md has no %q example", tag)
		}
	}
	for _, ex := range doc.examples["request"] {
		var req researchctx.Request
		if err := strictDecode(ex, &req); err != nil {
			t.Errorf("request example: %v", err)
		}
		if req.Vault == "" || req.TurnID == "" || req.RuntimeID == "" {
			t.Errorf("request example lacks vault, runtimeId or turnId: %+v", req)
		}
	}
	for _, ex := range doc.examples["plan"] {
		var p researchctx.Plan
		if err := strictDecode(ex, &p); err != nil {
			t.Errorf("plan example: %v", err)
			continue
		}
		if got := p.Scope.Fingerprint(); got != p.Fingerprint {
			t.Errorf("plan example's fingerprint is %s; its scope's is %s", p.Fingerprint, got)
		}
	}
	for _, ex := range doc.examples["grant"] {
		var g grant.Grant
		if err := strictDecode(ex, &g); err != nil {
			t.Errorf("grant example: %v", err)
			continue
		}
		if got := g.Scope.Fingerprint(); got != g.Fingerprint {
			t.Errorf("grant example's fingerprint is %s; its scope's is %s", g.Fingerprint, got)
		}
		if g.Version != grant.FormatVersion {
			t.Errorf("grant example's version is %d, want %d", g.Version, grant.FormatVersion)
		}
	}
	for _, ex := range doc.examples["usage"] {
		for i, line := range strings.Split(strings.TrimSpace(ex), "\n") {
			var probe map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &probe); err != nil {
				t.Errorf("usage line %d: %v", i+1, err)
				continue
			}
			var err error
			switch {
			case probe["turnId"] != nil:
				var l usage.Line
				err = strictDecode(line, &l)
			case probe["reserve"] != nil:
				var r struct {
					At      string `json:"at"`
					Reserve struct {
						ID     string `json:"id"`
						TurnID string `json:"turnId"`
						Chars  int    `json:"chars"`
						PID    int    `json:"pid"`
						Host   string `json:"host"`
					} `json:"reserve"`
				}
				err = strictDecode(line, &r)
			case probe["release"] != nil:
				var r struct {
					At      string `json:"at"`
					Release string `json:"release"`
				}
				err = strictDecode(line, &r)
			default:
				t.Errorf("usage line %d is neither a call, a reservation nor a release: %s", i+1, line)
			}
			if err != nil {
				t.Errorf("usage line %d: %v", i+1, err)
			}
		}
	}
}

// TestContractUsageRecords checks the usage example's reservation and
// release lines against what the ledger really writes, so the contract's
// description of the lines a reader ignores stays true.
func TestContractUsageRecords(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/usage.jsonl"
	log := usage.Open(path)
	r, _, err := log.Reserve(t.Context(), "turn-1", 1000, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	r, _, err = log.Reserve(t.Context(), "turn-1", 1000, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Settle(grant.ToolSearch, []string{"notes/a.md"}, 5); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &probe); err != nil {
			t.Fatal(err)
		}
		var ks []string
		for k := range probe {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		kinds = append(kinds, strings.Join(ks, ","))
	}
	want := []string{"at,reserve", "at,release", "at,reserve", "at,chars,settles,tool,turnId,uris"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("usage.jsonl lines differ from the contract's three kinds (-want +got):\n%s", diff)
	}
}

// TestContractIsTheReference checks that the project's files point at
// docs/contract.md for the contract, never at a design document the
// repository does not hold.
func TestContractIsTheReference(t *testing.T) {
	spec := regexp.MustCompile(`\bSPEC(\b|\.md)`)
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") && name != ".ci" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".sh", ".html", ".js", ".css":
		default:
			if filepath.Base(p) != "run" {
				return nil
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if spec.MatchString(line) {
				t.Errorf("%s:%d points at a design document outside the repository: %s", p, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
