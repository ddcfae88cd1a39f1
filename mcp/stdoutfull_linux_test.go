package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/sys/unix"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestProcessStopsWithStdoutFull: a client that sends calls and never
// reads their answers fills the server's stdout pipe, so that the server's
// writes block; SIGTERM and SIGINT still end it within shutdownGrace (the
// bound below adds a margin for a loaded machine), with exit code 0, and
// the usage log holds only whole lines, at least one for each call whose
// result reached stdout.
func TestProcessStopsWithStdoutFull(t *testing.T) {
	bin := serverBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			gr := writeGrant(t, demoRequest(vaultfix.Sample(t)))
			cmd := exec.Command(bin, Flag, gr)
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			// The test holds the read end of stdout open and never reads it
			// until the server is gone: its writes block, not fail.
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr := &syncBuffer{}
			cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			inR.Close()
			outW.Close()
			t.Cleanup(func() {
				inW.Close()
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					cmd.Wait()
				}
				outR.Close()
			})
			// Tool calls first, each logged before it is answered; then
			// many more answers than the pipe holds: tool listings, a few
			// kB each. Written from goroutines: the test must not depend
			// on the server reading.
			const calls = 10
			lines := []string{initializeLine, initializedLine}
			for i := range calls {
				lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, drainCalls[i%len(drainCalls)]))
			}
			go inW.WriteString(strings.Join(lines, "\n") + "\n")
			waitFor(t, "the tool calls to be logged", func() bool { return turnUsage(t, gr, "turn-1").Calls == calls })
			lines = lines[:0]
			for i := range 300 {
				lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
			}
			go inW.WriteString(strings.Join(lines, "\n") + "\n")

			fd := int(outR.Fd())
			size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The pipe is full when what it holds stops growing: the
			// server has far more to write. (The kernel fills a pipe by
			// pages, so full is not always its size in bytes.)
			last, since := -1, time.Now()
			waitFor(t, "the server's stdout to fill", func() bool {
				n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
				if err != nil {
					t.Fatal(err)
				}
				if n != last {
					last, since = n, time.Now()
				}
				return n >= size/2 && time.Since(since) > time.Second
			})

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			const margin = 5 * time.Second // a loaded machine's scheduling, not the server's
			select {
			case <-done:
			case <-time.After(shutdownGrace + margin + 10*time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the server did not exit on %v with its stdout full (stderr %q)", sig, stderr.String())
			}
			took := time.Since(start)
			t.Logf("exited %v after %v", sig, took)
			if took > shutdownGrace+margin {
				t.Errorf("the server took %v to exit on %v, want at most %v", took, sig, shutdownGrace)
			}
			if code := cmd.ProcessState.ExitCode(); code != ExitOK {
				t.Errorf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
			}

			// What the server wrote: whole lines, then perhaps the start
			// of the answer it was writing when it stopped.
			n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(io.LimitReader(outR, int64(n)))
			if err != nil {
				t.Fatal(err)
			}
			if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
				out = out[:i+1]
			} else {
				out = nil
			}
			results := 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<22)
			for sc.Scan() {
				var msg struct {
					Result *struct {
						IsError bool `json:"isError"`
						Content []struct {
							Type string `json:"type"`
						} `json:"content"`
					} `json:"result"`
				}
				if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
					t.Fatalf("stdout line is not JSON: %.200q", sc.Text())
				}
				if msg.Result != nil && len(msg.Result.Content) > 0 && !msg.Result.IsError {
					results++ // a tool call's result: it logged a usage line first
				}
			}
			u := turnUsage(t, gr, "turn-1")
			t.Logf("%d results on stdout, %d usage lines", results, u.Calls)
			if u.Skipped != 0 || u.Calls < results || results == 0 {
				t.Errorf("usage log: %d calls, %d torn lines; want none torn and at least %d (one per result on stdout)", u.Calls, u.Skipped, results)
			}
		})
	}
}

// TestCloseByBlockedWriter: closing the writer to a client that reads
// nothing returns by its deadline, whether the blocked write can be cut
// (a pipe the runtime polls) or only abandoned (an io.Pipe); nothing is
// written after it, and a writer that takes deadlines gets none left set.
func TestCloseByBlockedWriter(t *testing.T) {
	pr, pw, err := os.Pipe() // non-blocking: takes write deadlines
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	ir, iw := io.Pipe() // takes none
	defer ir.Close()
	for _, tt := range []struct {
		name string
		w    io.Writer
		cut  bool
	}{
		{"pipe", pw, true},
		{"io.Pipe", iw, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &lockedWriter{w: tt.w}
			w.calls.passed(&jsonrpc.Request{ID: mustID(t, float64(7)), Method: "tools/call"})
			blocked := make(chan error, 1)
			go func() {
				// A message far larger than a pipe holds: it blocks.
				_, err := w.Write(bytes.Repeat([]byte("x"), 4<<20))
				blocked <- err
			}()
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			err := w.closeBy(start.Add(300 * time.Millisecond))
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("closeBy took %v, want about 300ms", took)
			}
			if tt.cut {
				if err := <-blocked; err == nil {
					t.Error("the blocked write succeeded; want it cut at the deadline")
				}
				// Once closeBy's writes end, the writer is the caller's
				// again: no deadline is left set.
				go io.Copy(io.Discard, pr)
				waitFor(t, "the pipe to take writes again", func() bool {
					_, err := pw.Write([]byte("after\n"))
					return err == nil
				})
			} else if !errors.Is(err, errBlocked) {
				t.Errorf("closeBy: %v, want errBlocked", err)
			}
			if _, err := w.Write([]byte("late\n")); !errors.Is(err, errClosed) {
				t.Errorf("write after closeBy: %v, want errClosed", err)
			}
		})
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
