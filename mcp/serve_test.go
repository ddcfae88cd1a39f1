package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestServe runs Serve in-process on pipes, as ServeIfRequested does on
// stdin and stdout, and talks to it at both protocol generations.
func TestServe(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- Serve(context.Background(), gr, sr, sw, &ServeOptions{})
				sw.Close()
			}()
			c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatal(err)
			}
			mustOK(t, call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234"}))
			cs.Close() // closes cw: the server sees EOF
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve after EOF: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after EOF")
			}
		})
	}
}

// TestServeBadGrant: a grant that cannot be served is an ErrGrant error,
// and nothing is written.
func TestServeBadGrant(t *testing.T) {
	vault := vaultfix.Sample(t)
	for name, path := range map[string]string{
		"missing":   filepath.Join(vault, ".agentero", "context-sessions", "rt", "grant.json"),
		"directory": vault,
		"relative":  "grant.json",
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Serve(context.Background(), path, strings.NewReader(initializeLine+"\n"), &out, nil)
			if !errors.Is(err, grant.ErrInvalid) {
				t.Errorf("err %v, want ErrGrant", err)
			}
			if err != nil && strings.Contains(err.Error(), vault) {
				t.Errorf("error names the Vault path: %v", err)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q", out.String())
			}
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"EOF", []string{Flag, gr}, ExitOK},
		{"no path", []string{Flag}, ExitUsage},
		{"missing grant", []string{Flag, gr + ".gone"}, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, nil)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if code == ExitUsage && (strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0) {
				t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
			}
		})
	}
}

func TestServerCommandLine(t *testing.T) {
	exe, args, err := ServerCommandLine("grant.json")
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if !filepath.IsAbs(exe) || filepath.Base(exe) != filepath.Base(self) {
		t.Errorf("exe %q, want the absolute path of %q", exe, self)
	}
	wd, _ := os.Getwd()
	if len(args) != 2 || args[0] != Flag || args[1] != filepath.Join(wd, "grant.json") {
		t.Errorf("args %q", args)
	}
	if _, _, err := ServerCommandLine(""); err == nil {
		t.Error("empty grant path accepted")
	}
}

func TestLoggerFromEnv(t *testing.T) {
	tests := []struct {
		env  string
		logs bool
	}{
		{"", false}, {"off", false}, {"0", false}, {"debug", true}, {"info", true}, {"1", true},
	}
	for _, tt := range tests {
		t.Setenv(LogEnv, tt.env)
		var b bytes.Buffer
		LoggerFromEnv(&b).Info("hello")
		if got := b.Len() > 0; got != tt.logs {
			t.Errorf("%s=%q: logged %v, want %v", LogEnv, tt.env, got, tt.logs)
		}
	}
}
