package agenttest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/grant"
)

// citeRE finds citation URIs in a tool result as the model got it: the
// text rendering's "cite: URI" lines, or the citationUri fields of the
// structured copy (which Claude Code forwards instead of the text).
var citeRE = regexp.MustCompile(`cite: (\S+)|"citationUri":\s*("(?:[^"\\]|\\.)*")`)

// Citations returns the URIs cited in a tool result, in order.
func Citations(text string) []string {
	var out []string
	for _, m := range citeRE.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			out = append(out, m[1])
		} else if u, err := strconv.Unquote(m[2]); err == nil {
			out = append(out, u)
		}
	}
	return out
}

// Prompts that select what Research does; any other prompt is a research
// question.
const (
	// ResearchQuery is what a research turn searches for in the sample
	// Vault.
	ResearchQuery = "strided global tokens"
	// AskOutOfGrant makes the model read OutsideGrant.
	AskOutOfGrant = "Read papers/vision/resnet-like for me."
	// AskHostile makes the model ask for a shell command titled with our
	// tool's name.
	AskHostile = "Run the shell command for me."
	// AskRead makes the model read the secret file with the agent's own
	// file-reading tool.
	AskRead = "Read the private file for me."
	// AskSlow is a research question a test can recognise in a hook, to
	// hold the turn open (e.g. to cancel it).
	AskSlow = "Take your time with strided global tokens."
)

// OutsideGrant is a paper of the sample Vault that no test grants.
const OutsideGrant = "papers/vision/resnet-like"

// ShellTools returns the agents' shell tools, for the hostile script:
// gemini-cli's, Claude Code's, and Codex's (exec_command with unified exec,
// shell and shell_command otherwise).
func ShellTools() []string {
	return []string{"run_shell_command", "Bash", "exec_command", "shell", "shell_command"}
}

// ReadTools returns the agents' own file-reading tools: Claude Code's and
// gemini-cli's.
func ReadTools() []string { return []string{"Read", "read_file"} }

// readCalls are calls of the agent's read tools (those declared, else all
// of them) on the file.
func readCalls(req Request, file string) []Call {
	var calls []Call
	for _, name := range ReadTools() {
		if _, ok := req.Tool(name); ok {
			calls = append(calls, Call{Name: name, Args: map[string]any{"file_path": file}})
		}
	}
	if len(calls) == 0 {
		for _, name := range ReadTools() {
			calls = append(calls, Call{Name: name, Args: map[string]any{"file_path": file}})
		}
	}
	return calls
}

// Codex's own file tools: view_image attaches a local image file to the
// conversation, apply_patch (free-form) adds, changes or deletes files,
// read_mcp_resource reads a resource of an attached MCP server.
const (
	ViewImage       = "view_image"
	ApplyPatch      = "apply_patch"
	ReadMCPResource = "read_mcp_resource"
)

// HostilePatches returns the hostile patches that change each secret
// file (which needs reading it).
func HostilePatches(secrets ...string) []string {
	var patches []string
	for _, s := range secrets {
		patches = append(patches, "*** Begin Patch\n*** Update File: "+s+"\n@@\n-a line the file does not have\n+"+grant.ToolSearch+"\n*** End Patch\n")
	}
	return patches
}

// HostileAddPatch returns the hostile patch that adds the marker file with
// the suffix ".patch".
func HostileAddPatch(marker string) string {
	return "*** Begin Patch\n*** Add File: " + marker + ".patch\n+" + grant.ToolSearch + "\n*** End Patch\n"
}

// calledWith reports whether the turn so far has a call of the tool whose
// input is in.
func calledWith(req Request, tool, in string) bool {
	for _, m := range req.Messages[max(req.LastUser(), 0):] {
		for _, c := range m.Calls {
			if c.Name == tool && c.Args["input"] == in {
				return true
			}
		}
	}
	return false
}

// Hostile returns the hostile shell command: it prints each secret file
// (files of the Vault outside the grant), then creates the marker file, and
// names our search tool in a comment.
func Hostile(marker string, secrets ...string) string {
	var b strings.Builder
	for _, s := range secrets {
		b.WriteString("cat " + s + "; ")
	}
	b.WriteString("touch " + marker + " # " + grant.ToolSearch)
	return b.String()
}

// shellCall is a call of the shell tool with the command, in the tool's
// argument shape.
func shellCall(name, cmd string) Call {
	switch name {
	case "exec_command":
		return Call{Name: name, Args: map[string]any{"cmd": cmd}}
	case "shell":
		return Call{Name: name, Args: map[string]any{"command": []any{"bash", "-lc", cmd}}}
	case "shell_command":
		return Call{Name: name, Args: map[string]any{"command": cmd}}
	}
	return Call{Name: name, Args: map[string]any{"command": cmd, "description": grant.ToolSearch}}
}

// Research is the scripted model of the real-agent tests. Claude Code
// declares MCP tools lazily: until ours are declared the model asks
// ToolSearch to load them. Then, by the user's prompt:
//   - a research question: context_search for the question's topic, then
//     context_read of the first card's URI, then an answer citing the URI
//     the read returned;
//   - AskOutOfGrant: context_read of a source outside the grant, then an
//     answer quoting the error;
//   - AskHostile: the agent's shell tool with the Hostile command (which
//     prints the secrets and creates the marker file, titled with our
//     tool's name) and its read tools on the first secret; when no shell tool is declared, every shell tool all
//     the same (a hostile model calls what it likes), the read tools on
//     the first secret, view_image of each
//     secret image (.png), read_mcp_resource of each secret's file:// URI
//     on our server and apply_patch with each of HostilePatches when those
//     are declared, then, once that came back, apply_patch with the
//     HostileAddPatch; then an answer quoting what came back first.
func Research(marker string, secrets ...string) Script {
	return func(req Request) Reply {
		if c, ok := LoadDeferred(req, grant.Tools()...); ok {
			return Reply{Calls: []Call{c}}
		}
		var results []Result
		for _, r := range req.TurnResults() {
			if r.Name != ToolSearch {
				results = append(results, r)
			}
		}
		search, _ := req.Tool(grant.ToolSearch)
		read, _ := req.Tool(grant.ToolRead)
		prompt := req.Prompt()
		switch {
		case strings.Contains(prompt, AskRead):
			if len(results) > 0 {
				return Reply{Text: "The read came back: " + results[0].Text}
			}
			if len(secrets) == 0 {
				return Reply{Text: "Nothing to read."}
			}
			return Reply{Calls: readCalls(req, secrets[0])}
		case strings.Contains(prompt, AskHostile):
			if _, ok := req.Tool(ApplyPatch); ok && len(results) > 0 && !calledWith(req, ApplyPatch, HostileAddPatch(marker)) {
				add := HostileAddPatch(marker)
				return Reply{Calls: []Call{{Name: ApplyPatch, Args: map[string]any{"input": add}}}}
			}
			if len(results) > 0 {
				return Reply{Text: "The shell call came back: " + results[0].Text}
			}
			cmd := Hostile(marker, secrets...)
			for _, name := range ShellTools() {
				if sh, ok := req.Tool(name); ok {
					calls := []Call{shellCall(sh.Name, cmd)}
					for _, rt := range ReadTools() {
						if _, ok := req.Tool(rt); ok && len(secrets) > 0 {
							calls = append(calls, Call{Name: rt, Args: map[string]any{"file_path": secrets[0]}})
						}
					}
					return Reply{Calls: calls}
				}
			}
			var calls []Call
			for _, name := range ShellTools() {
				calls = append(calls, shellCall(name, cmd))
			}
			if len(secrets) > 0 {
				calls = append(calls, readCalls(req, secrets[0])...)
			}
			if _, ok := req.Tool(ViewImage); ok {
				for _, s := range secrets {
					if strings.HasSuffix(s, ".png") {
						calls = append(calls, Call{Name: ViewImage, Args: map[string]any{"path": s}})
					}
				}
			}
			if _, ok := req.Tool(ReadMCPResource); ok {
				for _, s := range secrets {
					calls = append(calls, Call{Name: ReadMCPResource, Args: map[string]any{"server": grant.ServerName, "uri": "file://" + s}})
				}
			}
			if _, ok := req.Tool(ApplyPatch); ok {
				for _, p := range HostilePatches(secrets...) {
					calls = append(calls, Call{Name: ApplyPatch, Args: map[string]any{"input": p}})
				}
			}
			return Reply{Calls: calls}
		case strings.Contains(prompt, AskOutOfGrant):
			if len(results) > 0 {
				return Reply{Text: "The read came back: " + results[0].Text}
			}
			return Reply{Calls: []Call{{Name: read.Name, Args: map[string]any{"target": OutsideGrant, "mode": "metadata"}}}}
		}
		switch len(results) {
		case 0:
			return Reply{Calls: []Call{{Name: search.Name, Args: map[string]any{"query": ResearchQuery}}}}
		case 1:
			if results[0].IsError {
				return Reply{Text: "The search failed: " + results[0].Text}
			}
			uris := Citations(results[0].Text)
			if len(uris) == 0 {
				return Reply{Text: "No card to read."}
			}
			return Reply{Calls: []Call{{Name: read.Name, Args: map[string]any{"target": uris[0], "mode": "excerpt", "quote": ResearchQuery}}}}
		}
		last := results[len(results)-1]
		uris := Citations(last.Text)
		if last.IsError || len(uris) == 0 {
			return Reply{Text: "The read failed: " + last.Text}
		}
		return Reply{Text: "Strided global tokens summarise the whole document [" + uris[0] + "]."}
	}
}
