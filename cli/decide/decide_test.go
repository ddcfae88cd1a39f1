package decide_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/cli/decide"
)

// decide runs as a subcommand of the command: its input, its output, its
// usage line and its errors as the built-in subcommands'.
func TestSubcommand(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string
		err   string
	}{
		{"null", []string{"decide", "-input", "-"}, `{"previous": null, "plan": null}`, cli.ExitOK,
			"{\n  \"action\": \"new\",\n  \"reason\": \"no previous session\"\n}\n", ""},
		{"no -input", []string{"decide"}, "", cli.ExitUsage, "", "rc: decide: usage: rc decide -input FILE\n"},
		{"not its input", []string{"decide", "-input", "-"}, `{"plan": null, "extra": 1}`, cli.ExitUsage, "",
			"rc: decide: the input is not {\"previous\": Record, \"plan\": Plan} JSON: json: unknown field \"extra\"\n"},
		{"unknown subcommand", []string{"nope"}, "", cli.ExitUsage, "", "rc: unknown subcommand \"nope\": plan, serve, sources, clean or decide (rc -h)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			c := &cli.Command{Name: "rc", Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errb,
				Subcommands: map[string]cli.Subcommand{"decide": decide.Subcommand}}
			if code := c.Main(context.Background(), tt.args); code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if diff := cmp.Diff(tt.out, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.err, errb.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
	var help bytes.Buffer
	c := &cli.Command{Name: "rc", Stdout: &help, Subcommands: map[string]cli.Subcommand{"decide": decide.Subcommand}}
	c.Main(context.Background(), []string{"-h"})
	if !strings.Contains(help.String(), "  rc decide -input FILE\n        read {\"previous\"") || !strings.Contains(help.String(), "  rc clean -vault DIR") {
		t.Errorf("usage lacks decide or the built-in subcommands:\n%s", help.String())
	}
}

// Package cli does not link ACP: a host that embeds only plan and serve
// does not carry its SDK.
func TestCLIDoesNotImportACP(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/researchctx/researchctx/cli").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/researchctx/researchctx/acp" || strings.Contains(dep, "acp-go-sdk") {
			t.Errorf("package cli depends on %s", dep)
		}
	}
	if !strings.Contains(string(out), "github.com/researchctx/researchctx/mcp") {
		t.Errorf("go list -deps of cli does not list mcp: %s", out)
	}
}
