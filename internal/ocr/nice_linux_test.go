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

// procStat returns the fields of /proc/<pid>/stat after the command's
// closing parenthesis (the state, the parent, the process group, the
// session, ...; the nice level is the 17th), or false when they cannot be
// read.
func procStat(pid string) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f, len(f) >= 17
}

// procNice returns the nice field of /proc/<pid>/stat, or false when it
// cannot be read.
func procNice(pid string) (int, bool) {
	f, ok := procStat(pid)
	if !ok {
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

// TestTesseractSessionFollowsCalls: the engine's program started while
// no call is in flight runs in a session of its own (where the kernel
// shares the cores between sessions first), so that pages recognised in
// parallel beside other sessions' work get a share each; one started
// while a call is in flight runs in this process's session,
// lowprio.Nice levels below it. The calls are those the context given to
// Recognize tells of.
func TestTesseractSessionFollowsCalls(t *testing.T) {
	ours, ok := procStat("self")
	if !ok {
		t.Skip("no /proc")
	}
	oursNice, _ := procNice("self")
	b, _ := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	autogroups := strings.TrimSpace(string(b)) == "1"
	tests := []struct {
		name     string
		inFlight bool
		own      bool
	}{
		{"no call in flight", false, autogroups},
		{"a call in flight", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			eng, err := ocr.NewTesseract(context.Background(), fakeTesseract(t, "echo $$ > '"+pidFile+".tmp'; mv '"+pidFile+".tmp' '"+pidFile+"'; exec sleep 60"), nil, time.Minute, 1)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			ctx = lowprio.WithCalls(ctx, func() bool { return tc.inFlight })
			done := make(chan error, 1)
			go func() {
				_, err := eng.Recognize(ctx, ocr.Image{Data: []byte("P5 1 1 255\n\x00"), Format: ocr.PNM})
				done <- err
			}()
			defer func() {
				cancel()
				<-done
			}()
			var pid string
			for deadline := time.Now().Add(30 * time.Second); pid == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if b, err := os.ReadFile(pidFile); err == nil {
					pid = strings.TrimSpace(string(b))
				}
			}
			f, ok := procStat(pid)
			if !ok {
				t.Fatalf("the engine's program (pid %q) is not to be seen", pid)
			}
			if tc.own {
				if f[3] != pid {
					t.Errorf("the engine's program runs in session %s, want its own (%s)", f[3], pid)
				}
				return
			}
			if f[3] != ours[3] {
				t.Errorf("the engine's program runs in session %s, want ours (%s)", f[3], ours[3])
			}
			// The priority is set right after the start: read until it
			// shows, within a bound only a program left at ours reaches.
			want := min(oursNice+lowprio.Nice, 19)
			got, _ := procNice(pid)
			for deadline := time.Now().Add(20 * time.Second); got != want && time.Now().Before(deadline); got, _ = procNice(pid) {
				time.Sleep(20 * time.Millisecond)
			}
			if got != want {
				t.Errorf("the engine's program runs at nice %d, want %d (ours %d)", got, want, oursNice)
			}
		})
	}
}
