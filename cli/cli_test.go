package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"7d", 7 * 24 * time.Hour, false},
		{"1d", 24 * time.Hour, false},
		{"72h", 72 * time.Hour, false},
		{"90m", 90 * time.Minute, false},
		{"0d", 0, true},
		{"-1d", 0, true},
		{"d", 0, true},
		{"1.5d", 0, true},
		{"0s", 0, true},
		{"-5m", 0, true},
		{"soon", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// Exit codes and the one-line error, in process.
func TestMainExitCodes(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string
		err   string
	}{
		{"help", []string{"-h"}, "", ExitOK, builtinHelp("rc"), ""},
		{"a subcommand's help", []string{"sources", "-h"}, "", ExitOK, builtinHelp("rc"), ""},
		{"no subcommand", nil, "", ExitUsage, "", "rc: a subcommand is required: plan, serve, sources or clean (rc -h)\n"},
		{"decide is not built in", []string{"decide", "-input", "-"}, "", ExitUsage, "", "rc: unknown subcommand \"decide\": plan, serve, sources or clean (rc -h)\n"},
		{"bad request", []string{"plan", "-request", "-"}, "{", ExitUsage, "", "rc: plan: the request is not a valid Request (JSON, camelCase fields): unexpected EOF\n"},
		{"invalid request", []string{"plan", "-request", "-"}, `{"vault":"/v","runtimeId":"a b","turnId":"t"}`, ExitUsage, "",
			"rc: plan: invalid request: runtimeId \"a b\" is not a safe folder name (allowed: letters, digits, '.', '_', '-')\n"},
		{"relative cache folder", []string{"serve", "-cache-dir", "cache", "/v/.agentero/context-sessions/r/grant.json"}, "", ExitUsage, "",
			"rc: serve: -cache-dir must be an absolute folder (or - for none), got \"cache\"\n"},
		{"clean a relative vault", []string{"clean", "-vault", "v", "-older-than", "1d"}, "", ExitError, "",
			"rc: clean: cleaning grants: vault must be an absolute path\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			c := &Command{Name: "rc", Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errb}
			code := c.Main(context.Background(), tt.args)
			if code != tt.code {
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
}
