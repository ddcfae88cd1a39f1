package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// Citation URIs the default run's search must surface (see
// samplevault/README.md, "A good demo"): the paper's Limitations
// page and the meeting notes' slot routing results.
const (
	limitationsURI = "papers/2401.01234/2401.01234.pdf#page=2"
	meetingURI     = "notes/meeting%202024-03-12.md#section=Slot%20routing%20results"
)

// keptVault returns the sample vault path from the default run's closing
// line.
func keptVault(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^The sample vault is kept at (.+) so these links open`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no line saying where the sample vault is kept:\n%s", stdout)
	}
	return m[1]
}

func TestDefaultRun(t *testing.T) {
	tmp := t.TempDir()
	r := mustRun(t, tmp, "")
	out := r.stdout
	if strings.Contains(out, "\x1b") {
		t.Errorf("output to a pipe has escape codes:\n%q", out)
	}
	if r.stderr != "" {
		t.Errorf("stderr not empty:\n%s", r.stderr)
	}
	// The six steps, in order.
	last := -1
	for _, step := range []string{
		"\n1. The user asks", "\n2. Resolve → Plan", "\n3. The prompt block", "\n4. The grant",
		"\n5. A scripted agent turn over MCP", "\n6. Sources of this turn",
	} {
		i := strings.Index(out, step)
		if i < 0 || i < last {
			t.Fatalf("step %q missing or out of order:\n%s", strings.TrimSpace(step), out)
		}
		last = i
	}
	for _, want := range []string{
		"current paper  papers/2401.01234",
		"@-mentions     notes, reading-list",
		"source         directory notes",
		"source         file      reading-list",
		"Cite: papers/2401.01234/2401.01234.pdf#page=1",
		"→ context_search",
		`→ context_read {"mode":"excerpt"`,
		"excerpt, page 1, exact match (score 1.00)",
		"excerpt, page 1, approximate match (score 0.",
		`→ context_read {"mode":"page","page":2,"target":"papers/2401.01234"}`,
		`→ context_read {"mode":"marks","target":"papers/2401.01234"}`,
		"4 marks",
		"note: Gate init matters: check the Aldana and Ferreira residual design",
		`→ context_read {"target":"notes"}`,
		"→ paper_relations",
		"refused: not granted in this turn",
		"searched  seen on search cards only",
		"related  seen on relation cards only",
		"in the library, not in this grant",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The sources, numbered, after step 6.
	sources := out[last:]
	for _, uri := range []string{limitationsURI, meetingURI, "papers/2401.01234/2401.01234.pdf#page=1", "https://arxiv.org/abs/1706.03762"} {
		if !regexp.MustCompile(`(?m)^ +\d+\. ` + regexp.QuoteMeta(uri) + `( |$)`).MatchString(sources) {
			t.Errorf("source %s not listed:\n%s", uri, sources)
		}
	}
	// Each source once, under its strongest use: the page a search card
	// named and the agent then read is read, not searched.
	groups := sourceGroups(sources)
	for uri, want := range map[string]string{limitationsURI: "read", "papers/2401.01234/2401.01234.pdf#page=1": "read",
		meetingURI: "searched", "https://arxiv.org/abs/1706.03762": "related"} {
		if got := groups[uri]; len(got) != 1 || got[0] != want {
			t.Errorf("source %s listed under %v, want under %s only:\n%s", uri, got, want, sources)
		}
	}
	// Listing a folder hands out its URI, which is logged as every URI
	// a result hands out: the folder is a source read.
	if got := groups["notes"]; len(got) != 1 || got[0] != "read" {
		t.Errorf("the listed folder is listed under %v, want under read:\n%s", got, sources)
	}
	vaultDir := keptVault(t, out)
	if !strings.HasPrefix(vaultDir, tmp) {
		t.Errorf("sample vault %s is not under TMPDIR %s", vaultDir, tmp)
	}
	dir := filepath.Join(vaultDir, ".agentero", "context-sessions", runtimeID)
	for _, name := range []string{"grant.json", "usage.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	g, err := grant.Read(filepath.Join(dir, "grant.json"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := usage.Read(filepath.Join(dir, "usage.jsonl"), g.TurnID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Calls != 7 {
		t.Errorf("usage.jsonl has %d calls of the turn, want 7 (the refused read returns nothing)", u.Calls)
	}
}

// runJSON is the -json output, as a script reads it.
type runJSON struct {
	Vault     string            `json:"vault"`
	Sample    bool              `json:"sample"`
	Question  string            `json:"question"`
	Plan      researchctx.Plan  `json:"plan"`
	Prompt    string            `json:"prompt"`
	GrantPath string            `json:"grantPath"`
	UsagePath string            `json:"usagePath"`
	Calls     []json.RawMessage `json:"calls"`
	Agent     *struct {
		Command    []string              `json:"command"`
		Decision   acp.Decision          `json:"decision"`
		How        string                `json:"how"`
		SessionID  string                `json:"sessionId"`
		StopReason string                `json:"stopReason"`
		Refusal    string                `json:"refusal"`
		Mode       acp.SessionModeReport `json:"mode"`
		Guard      acp.Guard             `json:"guard"`
		Cancelled  bool                  `json:"cancelled"`
		Message    string                `json:"message"`
		ToolCalls  []acp.ToolCall        `json:"toolCalls"`
		Status     []string              `json:"status"`
		Sources    []string              `json:"sources"`
	} `json:"agent"`
	Usage struct {
		Calls, Chars, TurnChars int
	} `json:"usage"`
	Sources []struct {
		URI      string `json:"uri"`
		URL      string `json:"url"`
		Tool     string `json:"tool"`
		Use      string `json:"use"`
		External bool   `json:"external"`
		InGrant  bool   `json:"inGrant"`
	} `json:"sources"`
}

type callJSON struct {
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	IsError bool           `json:"isError"`
	Error   string         `json:"error"`
	Result  json.RawMessage
}

func parseRun(t *testing.T, stdout string) *runJSON {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var v runJSON
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("-json output does not parse: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("-json output has more than one value:\n%s", stdout)
	}
	return &v
}

func TestJSON(t *testing.T) {
	tmp := t.TempDir()
	r := mustRun(t, tmp, "", "-json")
	v := parseRun(t, r.stdout)
	if !v.Sample || v.Plan.Mode != grant.ModeMCP || v.Plan.Vault != v.Vault || v.Question != sampleAsk {
		t.Errorf("sample %v, mode %q, plan vault %q, vault %q, question %q", v.Sample, v.Plan.Mode, v.Plan.Vault, v.Vault, v.Question)
	}
	if !strings.HasPrefix(v.Vault, tmp) {
		t.Errorf("vault %s not under TMPDIR", v.Vault)
	}
	if !strings.Contains(v.Prompt, "papers/2401.01234/2401.01234.pdf#page=1") {
		t.Errorf("prompt lacks the evidence's citation URI:\n%s", v.Prompt)
	}
	var calls []callJSON
	for _, raw := range v.Calls {
		var c callJSON
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	var gotTools []string
	for _, c := range calls {
		gotTools = append(gotTools, c.Tool)
	}
	wantTools := []string{"context_search", "context_read", "context_read", "context_read", "context_read", "context_read", "paper_relations", "context_read"}
	if diff := cmp.Diff(wantTools, gotTools); diff != "" {
		t.Fatalf("calls (-want +got):\n%s", diff)
	}
	for i, c := range calls {
		if c.IsError != (i == len(calls)-1) {
			t.Errorf("call %d (%s %v): isError %v %s", i, c.Tool, c.Args, c.IsError, c.Error)
		}
	}
	if last := calls[len(calls)-1]; !strings.Contains(last.Error, "not granted") || last.Args["target"] != "papers/2403.05678" {
		t.Errorf("last call: %v %q, want a refused read of papers/2403.05678", last.Args, last.Error)
	}
	var search tools.SearchOutput
	if err := json.Unmarshal(calls[0].Result, &search); err != nil {
		t.Fatal(err)
	}
	cards := map[string]bool{}
	for _, c := range search.Cards {
		cards[c.CitationURI] = true
	}
	if !cards[limitationsURI] || !cards[meetingURI] {
		t.Errorf("the question's search does not surface the Limitations page and the meeting notes: %v", search.Cards)
	}

	// The sources are usage.jsonl's, each with a URL that opens.
	if _, err := os.Stat(v.GrantPath); err != nil {
		t.Errorf("grant: %v", err)
	}
	u, err := usage.Read(v.UsagePath, v.Plan.TurnID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got, gotUses []string
	for _, s := range v.Sources {
		got = append(got, s.URI)
		switch {
		case s.External:
			if s.URL != s.URI || !strings.HasPrefix(s.URL, "https://") {
				t.Errorf("external source %+v", s)
			}
		default:
			if !strings.HasPrefix(s.URL, "file://") || !strings.HasSuffix(s.URL, "/"+s.URI) {
				t.Errorf("vault source %+v: URL is not the file:// URL of the URI", s)
			}
		}
		if s.Tool == "" {
			t.Errorf("source %s has no tool", s.URI)
		}
		gotUses = append(gotUses, s.Use)
	}
	var wantUses []string
	for _, s := range u.Sources {
		wantUses = append(wantUses, string(s.Use))
	}
	if diff := cmp.Diff(wantUses, gotUses); diff != "" {
		t.Errorf("sources' uses are not usage.jsonl's strongest (-usage +json):\n%s", diff)
	}
	if diff := cmp.Diff(u.URIs(), got); diff != "" {
		t.Errorf("sources are not usage.jsonl's (-usage +json):\n%s", diff)
	}
	if v.Usage.Calls != u.Calls || v.Usage.Chars != u.Chars || v.Usage.TurnChars != v.Plan.Budget.TurnChars {
		t.Errorf("usage %+v, usage.jsonl %+v", v.Usage, u)
	}
}

// TestFlags runs the demo on a vault of one's own with every request flag.
func TestFlags(t *testing.T) {
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "my vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	quote := "Two mentions of the same clause, forty pages apart, can then attend to each other directly."
	r := mustRun(t, tmp, "", "-json", "-vault", vaultDir, "-paper", "papers/2403.05678", "-page", "1",
		"-quote", quote, "-mention", "notes/ideas.txt", "-mention", "papers/2406.09876", "-mention", "nowhere", "-ask", "slot routing")
	v := parseRun(t, r.stdout)
	if v.Sample || v.Vault != vaultDir || v.Question != "slot routing" {
		t.Errorf("sample %v, vault %q, question %q", v.Sample, v.Vault, v.Question)
	}
	var srcs []string
	for _, s := range v.Plan.Sources {
		srcs = append(srcs, string(s.Kind)+" "+s.Path)
	}
	if diff := cmp.Diff([]string{"paper papers/2403.05678", "file notes/ideas.txt", "paper papers/2406.09876"}, srcs); diff != "" {
		t.Errorf("plan sources (-want +got):\n%s", diff)
	}
	if len(v.Plan.Dropped) != 1 || v.Plan.Dropped[0].Path != "nowhere" {
		t.Errorf("dropped %+v, want nowhere", v.Plan.Dropped)
	}
	if len(v.Plan.Evidence) != 1 || v.Plan.Evidence[0].CitationURI != "papers/2403.05678/2403.05678.pdf#page=1" {
		t.Errorf("evidence %+v", v.Plan.Evidence)
	}
	var first callJSON
	if err := json.Unmarshal(v.Calls[0], &first); err != nil {
		t.Fatal(err)
	}
	if first.Args["query"] != "slot routing" {
		t.Errorf("search query %v, want the -ask question", first.Args["query"])
	}

	// -remote: a prompt-only turn, no calls, no sources.
	r = mustRun(t, tmp, "", "-vault", vaultDir, "-paper", "papers/2403.05678", "-remote")
	for _, want := range []string{"mode           prompt-only", "No tool calls: a prompt-only turn", "(none: the agent received nothing from the vault)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-remote output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "→ context_") || strings.Contains(r.stdout, "sample vault is kept") {
		t.Errorf("-remote run calls tools or speaks of the sample vault:\n%s", r.stdout)
	}
}

func TestInteractive(t *testing.T) {
	tmp := t.TempDir()
	in := strings.Join([]string{
		"召回率",
		"read notes/ideas.txt",
		"read notes/meeting 2024-03-12.md full",
		"read papers/2401.01234 metadata",
		"read papers/2401.01234/2401.01234.pdf#page=2 page",
		"read",
		"rel papers/2401.01234",
		"marks papers/2401.01234",
		"marks",
		"read papers/2403.05678",
		"sources",
		"quit",
		"never read",
	}, "\n") + "\n"
	r := mustRun(t, tmp, in, "-i")
	out := r.stdout
	for _, want := range []string{
		"5. Interactive",
		`→ context_search {"query":"召回率"}`,
		"notes/meeting%202024-03-12.md#section=%E5%A4%87%E6%B3%A8",
		"稀疏注意力在长文档上的召回率仍然不稳定",
		"Ideas, loosely sorted — notes/ideas.txt",
		"full text: ",
		"Mira Okafor, Tomas Lindqvist, Hana Sato · 2024 · 3 pages",
		"page 2: ",
		"usage: read <target-or-uri> [mode]",
		"cited by   Routing Tokens to Memory Slots",
		`→ context_read {"mode":"marks","target":"papers/2401.01234"}`,
		"[3] highlight, p. 2 — papers/2401.01234/2401.01234.pdf#page=2",
		`"The pooled summary is added to each block"`,
		"note: Ask Hana whether the MedRec numbers used the same split as Longformer.",
		"usage: marks <paper>",
		"refused: not granted in this turn",
		"searched  seen on search cards only",
		"6. Sources of this turn",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("interactive output lacks %q", want)
		}
	}
	if strings.Contains(out, "never read") {
		t.Errorf("a line after quit was run:\n%s", out)
	}
	// The end of input ends the session like quit.
	r = mustRun(t, tmp, "read notes\n", "-i")
	if !strings.Contains(r.stdout, "4 entries: archive/, ideas.txt, meeting 2024-03-12.md, reading-plan.md") {
		t.Errorf("directory listing missing:\n%s", r.stdout)
	}
}

func TestErrors(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "no-such-vault")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"vault not found", []string{"-vault", missing}, "not found"},
		{"paper ref not found", []string{"-paper", "papers/nope"}, `"papers/nope" is not a paper of this vault`},
		{"paper ref is a directory", []string{"-paper", "notes"}, `"notes" is not a paper of this vault`},
		{"paper ref is an organisation folder", []string{"-paper", "papers/vision"}, `"papers/vision" is not a paper`},
		{"agent command not found", []string{"-agent", "no-such-agent-xyz --acp"}, `agent command "no-such-agent-xyz" not found`},
		{"agent command unclosed quote", []string{"-agent", `agent "--flag`}, "unclosed"},
		{"agent command empty", []string{"-agent", "  "}, "empty command"},
		{"unknown flag", []string{"-nope"}, "see quickchat -h"},
		{"argument", []string{"extra"}, `unexpected argument "extra"`},
		{"-i with -agent", []string{"-i", "-agent", "x"}, "cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := t.TempDir()
			r := run(t, sub, "", tt.args...)
			checkOneLineError(t, r, tt.want)
			if ents, _ := os.ReadDir(sub); len(ents) > 0 {
				t.Errorf("a failed run left %s in TMPDIR", ents[0].Name())
			}
		})
	}
}

func TestHelp(t *testing.T) {
	r := run(t, t.TempDir(), "", "-h")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "quickchat plan -request") || !strings.Contains(r.stderr, "-agent") {
		t.Errorf("-h: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// BenchmarkDefaultRun measures the default run, from the process start to
// its exit: the target is under 2 s after the build.
func BenchmarkDefaultRun(b *testing.B) {
	exe := builtQuickchat(b)
	for b.Loop() {
		tmp := b.TempDir()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}

// sourceGroups reads the sources listed in step 6 of the output: for each
// URI, the groups (read, searched, related) it is listed under.
func sourceGroups(out string) map[string][]string {
	heading := regexp.MustCompile(`^   (read|searched|related)  `)
	item := regexp.MustCompile(`^ +\d+\. (\S+)`)
	groups := map[string][]string{}
	group := ""
	for _, line := range strings.Split(out, "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			group = m[1]
		} else if m := item.FindStringSubmatch(line); m != nil && group != "" {
			groups[m[1]] = append(groups[m[1]], group)
		}
	}
	return groups
}
