package vault_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources/vault"
)

// sessionEngine is an engine whose pages each wait until the test lets
// one go (release), then run a program as the tesseract engine runs its
// own (lowprio.RunContext under the page's context), which prints its
// /proc stat; own receives whether that program led a session of its
// own.
type sessionEngine struct {
	release chan struct{}
	own     chan bool
}

func (*sessionEngine) ID() string { return "session 1 eng" }

func (e *sessionEngine) Recognize(ctx context.Context, _ ocr.Image) (*ocr.Result, error) {
	select {
	case <-e.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	cmd := exec.CommandContext(ctx, "cat", "/proc/self/stat")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := lowprio.RunContext(ctx, cmd); err != nil {
		return nil, err
	}
	s := out.String()
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	e.own <- len(f) > 3 && f[3] == strings.Fields(s)[0]
	return words(0.9, "Wombats", "dig", "burrows"), nil
}

// TestBackgroundOCRSessionFollowsCalls: a background page's engine told of
// the library's calls: its program started while no call is in flight
// runs in a session of its own (where the kernel shares the cores between
// sessions first), one started while a call is runs in the server's.
func TestBackgroundOCRSessionFollowsCalls(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat program")
	}
	b, _ := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	autogroups := strings.TrimSpace(string(b)) == "1"
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, root, map[string]string{"scans/scan.pdf": string(hostilepdf.Scan(16, 16, jpg.Bytes(), jpg.Bytes(), jpg.Bytes()))})
	eng := &sessionEngine{release: make(chan struct{}), own: make(chan bool, 4)}
	lib := openWith(t, root, t.TempDir(), eng)
	// The search queues the scan's pages for the background OCR; it has
	// ended when it returns.
	if res := search(t, lib, "scans", "wombats"); res.Indexing == nil {
		t.Fatalf("the scan's pages were not left to the background: %+v", res)
	}
	eng.release <- struct{}{}
	if own := <-eng.own; own != autogroups {
		t.Errorf("a page started with no call in flight: in a session of its own = %v, want %v", own, autogroups)
	}
	_, end := vault.BeginCall(lib, context.Background())
	eng.release <- struct{}{}
	if own := <-eng.own; own {
		t.Error("a page started while a call was in flight ran in a session of its own, want the server's")
	}
	end()
	close(eng.release)
	if res := searchAll(t, lib, "scans", "wombats dig burrows"); res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the scan was not recognised: %+v", res)
	}
}
