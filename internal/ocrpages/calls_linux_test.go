package ocrpages

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// sessionEngine is an engine that runs, for each page, a program that
// prints its /proc stat, as lowprio.RunContext runs it under the page's
// context, and keeps whether that program led a session of its own.
type sessionEngine struct {
	mu  sync.Mutex
	own []bool
}

func (*sessionEngine) ID() string { return "session 1" }

func (e *sessionEngine) Recognize(ctx context.Context, _ ocr.Image) (*ocr.Result, error) {
	cmd := exec.CommandContext(ctx, "cat", "/proc/self/stat")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := lowprio.RunContext(ctx, cmd); err != nil {
		return nil, err
	}
	s := out.String()
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 {
		return nil, ocr.ErrFailed
	}
	e.mu.Lock()
	e.own = append(e.own, f[3] == strings.Fields(s)[0])
	e.mu.Unlock()
	return &ocr.Result{Text: "text", Words: []ocr.Word{{Text: "text", Confidence: 0.9}}, Confidence: 0.9}, nil
}

// TestBackgroundPagesToldOfCalls: the engine of a background page is told
// of the calls in flight (Store.InFlight): started while none is, its
// program runs in a session of its own (where the kernel shares the cores
// between sessions first), and in this process's while one is; a read's
// page, itself a call, runs in this process's session.
func TestBackgroundPagesToldOfCalls(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat program")
	}
	b, _ := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	autogroups := strings.TrimSpace(string(b)) == "1"
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	data := hostilepdf.Scan(16, 16, jpg.Bytes(), jpg.Bytes())
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Doc: doc, Open: func() (io.ReaderAt, int64, io.Closer, error) {
		return bytes.NewReader(data), int64(len(data)), io.NopCloser(nil), nil
	}}
	tests := []struct {
		name       string
		background bool
		inFlight   bool
		own        bool
	}{
		{"background, no call in flight", true, false, autogroups},
		{"background, a call in flight", true, true, false},
		{"a read", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng := &sessionEngine{}
			s := &Store{InFlight: func() bool { return tc.inFlight }}
			rec, ran := s.Pages(context.Background(), eng, src, []int{1, 2}, Ref{Key: "scan", Engine: eng.ID()}, tc.background)
			if !ran || len(rec) != 2 {
				t.Fatalf("Pages = %v, %v; want both pages recognised", rec, ran)
			}
			if diff := cmp.Diff([]bool{tc.own, tc.own}, eng.own); diff != "" {
				t.Errorf("the engine's programs in sessions of their own (-want +got):\n%s", diff)
			}
		})
	}
}
