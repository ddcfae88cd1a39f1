//go:build unix

package ocr_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/ocr"
)

// TestTesseractKilledWithItsContext: when the caller's context ends (a
// call's deadline, a library closed), the program is killed and Recognize
// returns the context's error, well before the page's own deadline.
func TestTesseractKilledWithItsContext(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	eng, err := ocr.NewTesseract(context.Background(), fakeTesseract(t, "echo $$ > '"+pidFile+"'; exec sleep 60"), nil, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	r, err := eng.Recognize(ctx, ocr.Image{Data: []byte("P5 1 1 255\n\x00"), Format: ocr.PNM})
	if !errors.Is(err, context.DeadlineExceeded) || r != nil {
		t.Fatalf("Recognize = %v, %v; want the context's deadline", r, err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s after a deadline of 2s", d)
	}
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		// Killed before it wrote its pid (a busy machine): gone too.
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the program (pid %d) still runs: %v", pid, err)
	}
}
