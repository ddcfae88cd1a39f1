package mcp

import (
	"context"
	"io"
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// gcPercent returns the collector's percentage without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestHoldCollector: the hold turns the collector off only under a memory
// limit, which it lowers to its own heap bound (never raises), and its
// release, or its maximum, restores the percentage and the limit as they
// were.
func TestHoldCollector(t *testing.T) {
	prevLimit := debug.SetMemoryLimit(-1)
	prevPercent := debug.SetGCPercent(150)
	t.Cleanup(func() {
		debug.SetMemoryLimit(prevLimit)
		debug.SetGCPercent(prevPercent)
	})

	debug.SetMemoryLimit(math.MaxInt64)
	release := holdCollector(time.Hour, 64<<20)
	if p := gcPercent(); p != 150 {
		t.Errorf("without a memory limit the hold set GOGC to %d, want it left at 150", p)
	}
	release()

	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("without a memory limit the hold set one of %d", l)
	}
	debug.SetMemoryLimit(1 << 30)
	release = holdCollector(time.Hour, 64<<20)
	if p := gcPercent(); p != -1 {
		t.Errorf("held: GOGC %d, want off (-1)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 64<<20 {
		t.Errorf("held: memory limit %d, want the hold's 64 MiB", l)
	}
	release()
	if p := gcPercent(); p != 150 {
		t.Errorf("released: GOGC %d, want 150 again", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("released: memory limit %d, want 1 GiB again", l)
	}
	debug.SetMemoryLimit(32 << 20)
	release = holdCollector(time.Hour, 64<<20)
	if l := debug.SetMemoryLimit(-1); l != 32<<20 {
		t.Errorf("held under a lower limit: %d, want it kept at 32 MiB", l)
	}
	release()
	debug.SetMemoryLimit(1 << 30)
	debug.SetGCPercent(120)
	release() // a second release changes nothing
	if p := gcPercent(); p != 120 {
		t.Errorf("a second release set GOGC to %d", p)
	}

	// In a synctest bubble the hold's timer runs on the bubble's clock:
	// held until its maximum, released at it, whatever the load.
	synctest.Test(t, func(t *testing.T) {
		debug.SetGCPercent(150)
		holdCollector(20*time.Millisecond, 64<<20)
		time.Sleep(19 * time.Millisecond)
		synctest.Wait()
		if p := gcPercent(); p != -1 {
			t.Errorf("before its maximum: GOGC %d, want still off (-1)", p)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if p := gcPercent(); p != 150 {
			t.Fatalf("the hold did not end at its maximum: GOGC %d, want 150", p)
		}
	})
}

// TestServeAnswered: a server calls its answered hook once each tool call
// has its result, errors included, so that a process's startup hold ends
// with its first answer.
func TestServeAnswered(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	var n atomic.Int32
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), gr, sr, sw, &ServeOptions{answered: func() { n.Add(1) }})
		sw.Close()
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("answered %d times before any call", got)
	}
	mustOK(t, call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234"}))
	if got := n.Load(); got != 1 {
		t.Errorf("answered %d times after one call, want 1", got)
	}
	call(t, cs, grant.ToolRead, map[string]any{"target": "private/secret.pdf"}) // refused
	if got := n.Load(); got != 2 {
		t.Errorf("answered %d times after a refused call, want 2", got)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
