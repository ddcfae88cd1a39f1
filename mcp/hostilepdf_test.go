package mcp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestProcessHostilePDFInLibrary is the reported crash: a PDF whose
// content nests arrays 30 million deep, in a paper the turn does not
// grant, overflowed the server's stack on paper_relations of a granted
// paper, in every new session. Here two sessions (two server processes)
// each ask for the relations of the granted paper, with that PDF and one
// whose objects nest a million deep in the library: both must answer and
// exit cleanly.
func TestProcessHostilePDFInLibrary(t *testing.T) {
	// Server processes, a vault of its own, and no time bound.
	t.Parallel()
	vault := vaultfix.Sample(t)
	for name, data := range map[string][]byte{
		"deep-content": hostilepdf.DeepContentFlate(30 << 20),
		"deep-object":  hostilepdf.DeepObject("[", 1<<20),
		// A 41 kB cross-reference stream of 4M entries, and 200 pages of
		// 2,000 free-text annotations of 1,000 characters each.
		"xref-flood":  hostilepdf.XRefStreamFlood(4_000_000),
		"annot-flood": hostilepdf.AnnotFlood(200, 2000, 1000),
	} {
		dir := filepath.Join(vault, "papers", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(`{"title": "`+name+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".pdf"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gr := writeGrant(t, demoRequest(vault))
	for session := 1; session <= 2; session++ {
		s := startServer(t, gr, "")
		start := time.Now()
		res := call(t, s.cs, grant.ToolRelations, map[string]any{"paper": "papers/2401.01234"})
		mustOK(t, res)
		t.Logf("session %d: paper_relations in %v", session, time.Since(start))
		// The server is still there for the next call.
		mustOK(t, call(t, s.cs, grant.ToolSearch, map[string]any{"query": "strided global tokens"}))
		if err := s.close(); err != nil {
			t.Errorf("session %d: server exit: %v (stderr: %s)", session, err, s.stderr)
		}
		if code := s.cmd.ProcessState.ExitCode(); code != ExitOK {
			t.Errorf("session %d: exit code %d, want 0 (stderr: %s)", session, code, s.stderr)
		}
	}
}
