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
	// AskSlow is a research question a test can recognise in a hook, to
	// hold the turn open (e.g. to cancel it).
	AskSlow = "Take your time with strided global tokens."
)

// OutsideGrant is a paper of the sample Vault that no test grants.
const OutsideGrant = "papers/vision/resnet-like"

// ShellTools are the agents' shell tools, for the hostile script.
var ShellTools = []string{"run_shell_command", "Bash"}

// Research is the scripted model of the real-agent tests. Claude Code
// declares MCP tools lazily: until ours are declared the model asks
// ToolSearch to load them. Then, by the user's prompt:
//   - a research question: context_search for the question's topic, then
//     context_read of the first card's URI, then an answer citing the URI
//     the read returned;
//   - AskOutOfGrant: context_read of a source outside the grant, then an
//     answer quoting the error;
//   - AskHostile: the agent's shell tool with a command that creates the
//     marker file and is titled with our tool's name, then an answer.
func Research(marker string) Script {
	return func(req Request) Reply {
		if c, ok := LoadDeferred(req, grant.Tools...); ok {
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
		case strings.Contains(prompt, AskHostile):
			if len(results) > 0 {
				return Reply{Text: "The shell call came back: " + results[0].Text}
			}
			for _, name := range ShellTools {
				if sh, ok := req.Tool(name); ok {
					cmd := "touch " + marker + " # " + grant.ToolSearch
					return Reply{Calls: []Call{{Name: sh.Name, Args: map[string]any{"command": cmd, "description": grant.ToolSearch}}}}
				}
			}
			return Reply{Text: "No shell tool was declared."}
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
