package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/grant"
)

// The tool declarations two real agents derive from our tools/list and put
// in front of their model, as their published source builds them:
//
//   - gemini-cli 0.61.0 (@google/gemini-cli-core dist/src/tools/mcp-client.js,
//     tools.js getSchema, tool-registry.js getFunctionDeclarations): name
//     "mcp_<server>_<tool>", the description as sent, parametersJsonSchema
//     = our inputSchema with a wait_for_previous property added.
//   - Claude Code through @agentclientprotocol/claude-agent-acp 0.101.0:
//     name "mcp__<server>__<tool>", the description as sent, input_schema =
//     our inputSchema (the tools are deferred behind its ToolSearch tool
//     and loaded by name). The CLI itself is not published as source; this
//     is the naming its permission requests and tool calls carry.
//
// testdata/declarations holds the result (go test -run TestDeclarations
// -update rewrites it). The test fails when our schemas change, so a change
// is a reviewed diff of what agents show their model; the end-to-end tests
// with unmodified agents record the live declarations against these files.

const geminiWaitForPrevious = "Set to true to wait for all previously requested tools in this turn to complete before starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the output of previous tools."

type geminiDeclaration struct {
	Name                 string         `json:"name"`
	Description          string         `json:"description"`
	ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
}

type claudeDeclaration struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

func TestDeclarations(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, nil), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var gemini []geminiDeclaration
	var claude []claudeDeclaration
	for _, tool := range res.Tools {
		var schema map[string]any
		data, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		// gemini-cli: a shallow copy with one property more.
		params := map[string]any{}
		for k, v := range schema {
			params[k] = v
		}
		props := map[string]any{}
		for k, v := range schema["properties"].(map[string]any) {
			props[k] = v
		}
		props["wait_for_previous"] = map[string]any{"type": "boolean", "description": geminiWaitForPrevious}
		params["properties"] = props
		gemini = append(gemini, geminiDeclaration{Name: "mcp_" + grant.ServerName + "_" + tool.Name, Description: tool.Description, ParametersJSONSchema: params})
		claude = append(claude, claudeDeclaration{Name: "mcp__" + grant.ServerName + "__" + tool.Name, Description: tool.Description, InputSchema: schema})

		// What agents derive keeps our schema unchanged: every property,
		// the required list and the closed object.
		got := map[string]any{}
		for k, v := range params {
			got[k] = v
		}
		delete(props, "wait_for_previous")
		if diff := cmp.Diff(schema, got); diff != "" {
			t.Errorf("%s: gemini-cli's parameters differ from our input schema beyond wait_for_previous:\n%s", tool.Name, diff)
		}
		if schema["additionalProperties"] != false || schema["type"] != "object" || schema["required"] == nil {
			t.Errorf("%s: input schema %v is not a closed object with required fields", tool.Name, schema)
		}
	}
	for name, v := range map[string]any{"gemini-cli.json": gemini, "claude-code.json": claude} {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		path := filepath.Join("testdata", "declarations", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestDeclarations -update)", err)
		}
		if !bytes.Equal(want, data) {
			t.Errorf("%s: the declarations agents derive changed (-recorded +now):\n%s", name, cmp.Diff(string(want), string(data)))
		}
	}
}
