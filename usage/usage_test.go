package usage

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/grant"
)

// TestMain lets the test binary act as a usage writer process.
func TestMain(m *testing.M) {
	if path := os.Getenv("RESEARCHCTX_USAGE_WRITER"); path != "" {
		id := os.Getenv("RESEARCHCTX_USAGE_ID")
		for i := range 1000 {
			uri := fmt.Sprintf("papers/p%s/p.pdf#page=%d", id, i%7+1)
			if err := appendLine(path, Line{TurnID: "t", Tool: "context_read", URIs: []string{uri}, Chars: 1}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	if path := os.Getenv("RESEARCHCTX_LEDGER_CLIENT"); path != "" {
		os.Exit(ledgerClient(path))
	}
	if path := os.Getenv("RESEARCHCTX_CLEAN_HOLDER"); path != "" {
		os.Exit(reservationHolder(path))
	}
	os.Exit(m.Run())
}

func TestUsageConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	const procs = 8
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RESEARCHCTX_USAGE_WRITER="+path, "RESEARCHCTX_USAGE_ID="+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("writer %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not valid JSON (interleaved?): %q", lines+1, sc.Text())
		}
		lines++
	}
	if lines != procs*1000 {
		t.Fatalf("%d lines, want %d", lines, procs*1000)
	}
	u, err := Read(path, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Calls != 8000 || u.Chars != 8000 || u.Skipped != 0 || len(u.Sources) != procs*7 {
		t.Errorf("usage = calls %d chars %d skipped %d sources %d; want 8000, 8000, 0, %d", u.Calls, u.Chars, u.Skipped, len(u.Sources), procs*7)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("usage mode %v, want 0600", st.Mode().Perm())
	}
}

func TestReadUsage(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	for _, l := range []Line{
		{TurnID: "t1", Tool: "context_search", URIs: []string{"a.pdf#page=1", "b.md"}, Chars: 100},
		{TurnID: "t2", Tool: "context_read", URIs: []string{"other.pdf#page=9"}, Chars: 5000},
		{TurnID: "t1", Tool: "context_read", URIs: []string{"b.md", "c.txt"}, Chars: 50},
		{TurnID: "t1", Tool: "paper_relations", Chars: 10},
	} {
		if err := appendLine(path, l); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n" + `{"turnId":"t1","tool":"context_read","uris":["torn.pdf"],"chars":99`)
	f.Close()
	u, err := Read(path, "t1", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Turn{Calls: 3, Chars: 160, Sources: []Used{
		{URI: "a.pdf#page=1", Use: UseSearched, Tools: []string{grant.ToolSearch}, Place: InLibrary},
		{URI: "b.md", Use: UseRead, Tools: []string{grant.ToolSearch, grant.ToolRead}, Place: InLibrary},
		{URI: "c.txt", Use: UseRead, Tools: []string{grant.ToolRead}, Place: InLibrary},
	}, Skipped: 2, Lines: []Line{
		{TurnID: "t1", Tool: "context_search", URIs: []string{"a.pdf#page=1", "b.md"}, Chars: 100},
		{TurnID: "t1", Tool: "context_read", URIs: []string{"b.md", "c.txt"}, Chars: 50},
		{TurnID: "t1", Tool: "paper_relations", URIs: []string{}, Chars: 10},
	}}
	if diff := cmp.Diff(want, u, cmpopts.IgnoreFields(Line{}, "At")); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	u, err = Read(filepath.Join(t.TempDir(), "missing.jsonl"), "t1", nil)
	if err != nil || u.Calls != 0 {
		t.Errorf("missing log: %+v, %v", u, err)
	}
}

func TestSumUsageIncremental(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	sums := map[string]int{}
	next, err := sumTurns(path, 0, sums)
	if err != nil || next != 0 || len(sums) != 0 {
		t.Fatalf("missing log: %d, %v, %v", next, sums, err)
	}
	appendLine(path, Line{TurnID: "a", Tool: "x", Chars: 5})
	appendLine(path, Line{TurnID: "b", Tool: "x", Chars: 7})
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"turnId":"a","tool":"x","chars":100`) // torn: not counted yet
	f.Close()
	next, err = sumTurns(path, next, sums)
	if err != nil || sums["a"] != 5 || sums["b"] != 7 {
		t.Fatalf("sums %v, %v", sums, err)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("}\n") // the line is whole now
	f.Close()
	appendLine(path, Line{TurnID: "a", Tool: "x", Chars: 1})
	if _, err := sumTurns(path, next, sums); err != nil || sums["a"] != 106 || sums["b"] != 7 {
		t.Fatalf("after appends: %v, %v", sums, err)
	}
}

// TestPlaceConnectorNamespace: a Zotero URI is in the grant only when a
// line of the turn lists it as granted and the scope grants a Zotero
// source (a collection holds items named outside its own path); an item
// the call did not find in the grant — a related item's card — is in the
// library, whatever Zotero source is granted.
func TestPlaceConnectorNamespace(t *testing.T) {
	zot := &grant.Scope{Sources: []grant.Ref{{Kind: "zotero", Path: "zotero:collections/Thesis"}, {Kind: grant.KindPaper, Path: "papers/a"}}}
	vaultOnly := &grant.Scope{Sources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/a"}}}
	const (
		page  = "zotero://open-pdf/library/items/QTBRV54N?page=2"
		ann   = "zotero://open-pdf/library/items/QTBRV54N?page=2&annotation=NXDAMBZG"
		item  = "zotero://select/library/items/ACFJNP3J"
		other = "zotero://select/library/items/A3TZQHPM"
	)
	granted := map[string]bool{page: true, ann: true, item: true, "papers/b/b.pdf#page=1": true}
	for _, tt := range []struct {
		uri   string
		scope *grant.Scope
		want  Place
	}{
		{page, zot, InGrant},
		{ann, zot, InGrant},
		{item, zot, InGrant},
		{other, zot, InLibrary},
		{item, vaultOnly, InLibrary},
		{item, nil, InLibrary},
		{"papers/a/a.pdf#page=1", zot, InGrant},
		// A Vault path is placed by the scope alone, whatever a line says.
		{"papers/b/b.pdf#page=1", zot, InLibrary},
		{"https://doi.org/10.1/x", zot, Outside},
	} {
		if got := placeOf(tt.uri, tt.scope, granted); got != tt.want {
			t.Errorf("placeOf(%q) = %s, want %s", tt.uri, got, tt.want)
		}
	}
}

// TestReadGrantedConnector: the turn's lines decide a Zotero URI's place:
// one a call listed as granted is in the grant, one it handed out without
// (a related item outside the granted collection) is in the library, and
// a line of an older log, which lists none, claims no Zotero URI for the
// grant.
func TestReadGrantedConnector(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.jsonl")
	const (
		in  = "zotero://select/library/items/ACFJNP3J"
		out = "zotero://select/library/items/A3TZQHPM"
		old = "zotero://select/library/items/YBRAS9NS"
	)
	appendLine(path, Line{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{in, out}, Granted: []string{in}, Chars: 10})
	appendLine(path, Line{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{old}, Chars: 10})
	scope := &grant.Scope{Sources: []grant.Ref{{Kind: "zotero", Path: "zotero:collections/Thesis"}}}
	u, err := Read(path, "t", scope)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Place{}
	for _, s := range u.Sources {
		got[s.URI] = s.Place
	}
	want := map[string]Place{in: InGrant, out: InLibrary, old: InLibrary}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("places (-want +got):\n%s", diff)
	}
}
