package ocr_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/ocr"
)

// procNice returns the nice field of /proc/<pid>/stat (the 17th field
// after the command's closing parenthesis), or false when it cannot be
// read.
func procNice(pid string) (int, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 17 {
		return 0, false
	}
	n, err := strconv.Atoi(f[16])
	return n, err == nil
}

// TestTesseractRunsBelowTheCaller: the engine's program runs
// lowprio.Nice levels below this process, so that the pages recognised
// in the background leave the cores to the calls. The program is a fake
// that writes its pid and waits; its priority is read from /proc while it
// runs.
func TestTesseractRunsBelowTheCaller(t *testing.T) {
	ours, ok := procNice("self")
	if !ok {
		t.Skip("no /proc")
	}
	want := min(ours+lowprio.Nice, 19)
	pidFile := filepath.Join(t.TempDir(), "pid")
	eng, err := ocr.NewTesseract(context.Background(), fakeTesseract(t, "echo $$ > '"+pidFile+".tmp'; mv '"+pidFile+".tmp' '"+pidFile+"'; exec sleep 60"), nil, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := eng.Recognize(ctx, ocr.Image{Data: []byte("P5 1 1 255\n\x00"), Format: ocr.PNM})
		done <- err
	}()
	defer func() {
		cancel()
		<-done
	}()
	// The program lowers no priority itself: it is read until it shows
	// the lowered one (set right after its start), within a bound that
	// only a program left at ours reaches.
	got, deadline := ours, time.Now().Add(20*time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidFile); err == nil {
			if n, ok := procNice(strings.TrimSpace(string(b))); ok {
				if got = n; got == want {
					break
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got != want {
		t.Errorf("the engine's program runs at nice %d, want %d (ours %d)", got, want, ours)
	}
}
