package session

import (
	"context"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func TestAllowContextTools(t *testing.T) {
	options := []acp.PermissionOption{
		{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "always"},
		{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "once"},
		{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "reject"},
	}
	tests := []struct {
		name    string
		title   string
		options []acp.PermissionOption
		want    string // selected option id, "" for cancelled
	}{
		{"our search tool is allowed once", "context_search (agentero-context MCP Server)", options, "once"},
		{"our read tool is allowed once", "agentero-context.context_read", options, "once"},
		{"a shell command is rejected", "rm -rf build", options, "reject"},
		{"an untitled call is rejected", "", options, "reject"},
		{"no reject option: cancelled", "write file", options[:2], ""},
		{"no allow-once option for ours: cancelled", "context_search", options[:1], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := acp.RequestPermissionRequest{SessionId: "s", Options: tt.options, ToolCall: acp.ToolCallUpdate{ToolCallId: "c"}}
			if tt.title != "" {
				req.ToolCall.Title = &tt.title
			}
			resp, err := AllowContextTools(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if resp.Outcome.Selected != nil {
				got = string(resp.Outcome.Selected.OptionId)
			} else if resp.Outcome.Cancelled == nil {
				t.Fatal("neither selected nor cancelled")
			}
			if got != tt.want {
				t.Errorf("selected %q, want %q", got, tt.want)
			}
		})
	}
}
