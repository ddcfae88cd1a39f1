package main

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/grant"
)

// testAgent builds package acp's test ACP agent (no language model: it
// spawns the MCP servers it is given, calls context_search with the last
// line of the prompt and context_read on the first card).
func testAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent")
	if out, err := exec.Command("go", "build", "-o", bin, "../../acp/testdata/agent").CombinedOutput(); err != nil {
		t.Fatalf("go build the test agent: %v\n%s", err, out)
	}
	return bin
}

// TestACPAgent: with -agent the turn goes to a real ACP agent process
// through package acp: its tool calls stream as they start and end, the
// sources come from usage.jsonl, and its sessions follow the same rules
// as the scripted agent's (same scope: continued; changed: new, with the
// hand-off).
func TestACPAgent(t *testing.T) {
	argv, err := parseFlags([]string{"-agent", testAgent(t) + " -resume -shape claude"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	r := &acpRunner{argv: argv.agent, stderr: os.Stderr}
	s, ts := runnerServer(t, sampleVault(t), r)
	sc := scope{CurrentPaper: samplePaper, Mentions: []string{"notes"}}

	evs := askTurn(t, s, ts, "slot routing results", sc)
	if errs := ofType(evs, evError); len(errs) > 0 {
		t.Fatalf("the turn failed: %s (%s)", errs[0].Text, describeEvents(evs))
	}
	s1 := lastSession(t, evs)
	if s1.Action != acp.ActionNew || s1.How != string(acp.HowNew) || s1.ID == "" || !s1.Server {
		t.Fatalf("first turn: %+v", s1)
	}
	starts, ends := ofType(evs, evCall), ofType(evs, evCallEnd)
	if len(starts) < 2 || len(ends) < len(starts) {
		t.Fatalf("%d calls started, %d ended: %s", len(starts), len(ends), describeEvents(evs))
	}
	// A call's last end event is its final state, with the citation URIs
	// it returned.
	final := map[string]*callView{}
	for _, e := range ends {
		final[e.Call.ID] = e.Call
	}
	first := final[starts[0].Call.ID]
	if starts[0].Call.Tool != grant.ToolSearch || first.Status != "completed" || len(first.Items) == 0 || first.Items[0].Link == nil {
		t.Errorf("first call: start %+v, end %+v", starts[0].Call, first)
	}
	src := ofType(evs, evSources)
	if len(src) != 1 || len(src[0].Sources.Groups) != 3 || src[0].Sources.Calls == 0 {
		t.Fatalf("sources: %+v", src)
	}
	n := 0
	for _, g := range src[0].Sources.Groups {
		for _, it := range g.Sources {
			n++
			if !it.External && !strings.HasPrefix(it.Href, docPrefix) {
				t.Errorf("source %s opens %q", it.URI, it.Href)
			}
		}
	}
	if n == 0 {
		t.Error("no sources")
	}

	s2 := lastSession(t, askTurn(t, s, ts, "limitations", sc))
	if s2.Action != acp.ActionResume || s2.ID != s1.ID {
		t.Errorf("same scope: %+v, want session %s continued", s2, s1.ID)
	}
	sc.Mentions = append(sc.Mentions, "reading-list")
	s3 := lastSession(t, askTurn(t, s, ts, "reading list", sc))
	if s3.Action != acp.ActionNew || s3.Reason != acp.ReasonScopeChanged || s3.ID == s1.ID || !strings.HasPrefix(s3.Handoff, acp.HandoffHeader) {
		t.Errorf("changed scope: %+v, want a new session with the hand-off", s3)
	}
}

// TestFlags: the page is served on a loopback address only, and bad flags
// get one clear error before anything is extracted or bound.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "0.0.0.0:0"}, "only a loopback address"},
		{[]string{"-addr", "192.168.1.10:8765"}, "only a loopback address"},
		{[]string{"-addr", "example.com:80"}, "only a loopback address"},
		{[]string{"-addr", "8765"}, "-addr"},
		{[]string{"-agent", "no-such-agent-command-xyz"}, "not found"},
		{[]string{"-agent", "'unclosed"}, "unclosed"},
		{[]string{"-pace", "-1s"}, "-pace"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-vault", filepath.Join(t.TempDir(), "missing")}, "not found"},
	} {
		err := run(t.Context(), tt.args, io.Discard, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sidebar %s: %v, want an error saying %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
	l, err := listen("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if h, _, _ := strings.Cut(l.Addr().String(), ":"); h != "127.0.0.1" {
		t.Errorf("localhost bound %s, want 127.0.0.1", l.Addr())
	}
}

// TestREADMEFlags: the README's section on the sidebar names every flag,
// and its default address.
func TestREADMEFlags(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i := strings.Index(readme, "### See the turn in a browser: `examples/sidebar`")
	if i < 0 {
		t.Fatal("README has no section on the sidebar")
	}
	sec := readme[i+1:]
	if j := strings.Index(sec, "\n#"); j >= 0 {
		sec = sec[:j]
	}
	flags(&config{}, new(string)).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(sec, "`-"+f.Name+" ") && !strings.Contains(sec, "`-"+f.Name+"`") {
			t.Errorf("the README's sidebar section does not name -%s", f.Name)
		}
	})
	if !strings.Contains(sec, defaultAddr) {
		t.Errorf("the README's sidebar section does not give the default address %s", defaultAddr)
	}
}
