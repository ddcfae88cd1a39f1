package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilevault"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// maxHostileRSS bounds the peak resident set of a server process that has
// read every hostile input of a test.
const maxHostileRSS = 300 << 20

// TestProcessHostileMarksFile puts each hostile marks/annotations.json of
// package hostilevault in turn beside the granted paper's PDF, and reads
// the paper's marks, a page and a search through one real server process:
// each read answers within 30 s with the PDF's marks and the file's
// problem said, the paper's text is still served, and the server's peak
// resident set stays within 300 MB (a 16 MiB file of tiny junk entries cost
// 530 MB and 40 s a read before marks files were bounded).
func TestProcessHostileMarksFile(t *testing.T) {
	vault := vaultfix.Sample(t)
	file := filepath.Join(vault, "papers", "2401.01234", "marks", "annotations.json")
	s := startServer(t, writeGrant(t, demoRequest(vault)), "")
	callTool := func(tool string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		t.Logf("%s %v: %v", tool, args, time.Since(start).Round(time.Millisecond))
		return res
	}
	for _, c := range hostilevault.MarksCases() {
		t.Run(c.Name, func(t *testing.T) {
			if err := os.WriteFile(file, c.Make(), 0o644); err != nil {
				t.Fatal(err)
			}
			res := callTool(grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "marks"})
			mustOK(t, res)
			var out struct {
				Marks []struct {
					Page int `json:"page"`
				} `json:"marks"`
				Note string `json:"note"`
			}
			decode(t, res, &out)
			if len(out.Marks) != 3 || !strings.Contains(out.Note, c.Problem) || !strings.Contains(text(res), c.Problem) {
				t.Errorf("marks read: %d marks, note %q, want the PDF's 3 and the problem %q", len(out.Marks), out.Note, c.Problem)
			}
			if strings.Contains(text(res), vault) {
				t.Errorf("the marks read names the Vault's path:\n%s", text(res))
			}
			page := callTool(grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "page", "page": 2})
			mustOK(t, page)
			if !strings.Contains(text(page), "pooled summary") {
				t.Errorf("page 2 read:\n%s", text(page))
			}
			mustOK(t, callTool(grant.ToolSearch, map[string]any{"query": "strided global tokens"}))
		})
	}
	rss := procstat.PeakRSSOf(s.cmd.Process.Pid)
	t.Logf("server peak RSS %d MB", rss>>20)
	if rss > maxHostileRSS {
		t.Errorf("server peak RSS %d MB, over %d MB", rss>>20, maxHostileRSS>>20)
	}
	if err := s.close(); err != nil {
		t.Errorf("server exit: %v (stderr: %s)", err, s.stderr)
	}
}
